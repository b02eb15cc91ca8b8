"""The dashboard's files as a browser should get them: compressed, cached, revalidated.

The pages' own files keep their names across versions, so a browser keeps them but asks
again each time (`no-cache` with the ETag Starlette sets: a 304 when nothing changed); the
vendored fonts and libraries change only with a release, so they are kept for a day.
Compression is the app's GZip middleware (`GZIP_MIN_BYTES`); a browser that asks for
/favicon.ico (every browser, before it reads a page's icon link) gets the SVG icon.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

GZIP_MIN_BYTES: Final = 1024  # below this, gzip's header costs about what it saves
REVALIDATE: Final = "no-cache"  # kept, but asked again each time (ETag → 304)
VENDORED: Final = "public, max-age=86400"  # fonts and libraries: new only with a release


class DashboardFiles(StaticFiles):
    """StaticFiles with a Cache-Control fitted to each file (ETags are Starlette's)."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        path = str(scope.get("path", ""))
        response.headers["Cache-Control"] = VENDORED if path.startswith("/vendor/") else REVALIDATE
        return response


def favicon(static: Path) -> FileResponse:
    """The SVG icon (the dashboard folder's) at the address browsers ask for on their own."""
    return FileResponse(
        static / "favicon.svg", media_type="image/svg+xml", headers={"Cache-Control": VENDORED}
    )
