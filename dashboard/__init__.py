"""The dashboard: plain files the table service serves (no build step, nothing from a CDN).

`STATIC` is the folder: pages, their scripts and styles, and the vendored libraries with
their licences (`vendor/`).
"""

from pathlib import Path
from typing import Final

STATIC: Final = Path(__file__).parent / "static"
