"""The HIL plugin on hardware: ground-truth tests skip with the reason; a dead table fails once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_table_that_never_comes_up_fails_once_and_skips_the_rest(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "hil_tests", "-q", "-rs", "-p", "no:cacheprovider",
         "--port", str(tmp_path / "no-such-table"), "--hil-link-timeout", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0
    out = done.stdout
    assert "1 error" in out and "no link to" in out
    marked = (ROOT / "hil_tests" / "test_scenarios.py").read_text().count("mark.simulator_only(")
    assert out.count("on hardware:") == marked  # simulator-only tests, each with its reason
    assert "the table is broken: no link to" in out  # the rest skip instead of cascading
