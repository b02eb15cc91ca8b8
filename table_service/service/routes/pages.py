"""Pages: the API's documentation page (/docs, from vendored files) and the favicon.
The dashboard's files are mounted at / by the app itself (api.py), after every route."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse

from dashboard import STATIC
from table_service.service.static import favicon


def router() -> APIRouter:
    router = APIRouter()

    @router.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(STATIC / "docs.html")

    router.get("/favicon.ico", include_in_schema=False)(favicon)
    return router
