"""Running `mjtable` as a user does, for the CLI tests: a real process."""

from __future__ import annotations

import subprocess
import sys


def mjtable(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mjtable", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
