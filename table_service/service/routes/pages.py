"""Pages: the API's documentation page (/docs, from the dashboard's vendored files) and the
favicon. The dashboard's files are mounted at / by the app itself (api.py), after every
route; the folder is the composition root's to give (`mjtable serve` passes the
dashboard's), so the service never imports the dashboard."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from table_service.service.static import favicon


def router(static: Path) -> APIRouter:
    router = APIRouter()

    @router.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(static / "docs.html")

    @router.get("/favicon.ico", include_in_schema=False)
    async def icon() -> FileResponse:
        return favicon(static)

    return router
