"""The dashboard's files as a browser gets them: gzip-compressed, kept and revalidated by
ETag (a 304 when unchanged), the vendored fonts kept for a day, and /favicon.ico served
(browsers ask for it on their own; a 404 there is an error in every page's console)."""

from __future__ import annotations

import gzip

import httpx

from table_service.service.api import create_app
from tests.api.kit import BASE_URL, Api


async def test_a_page_script_is_compressed_and_revalidated_by_its_etag(api: Api) -> None:
    first = await api.client.get("/js/table.js", headers={"Accept-Encoding": "gzip"})
    assert first.status_code == 200
    assert first.headers["content-encoding"] == "gzip"
    assert first.headers["cache-control"] == "no-cache"
    assert "import" in first.text  # httpx undid the gzip: the script itself
    again = await api.client.get("/js/table.js", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""


async def test_without_gzip_asked_the_file_goes_as_it_is(api: Api) -> None:
    plain = await api.client.get("/css/dashboard.css", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200
    assert "content-encoding" not in plain.headers
    headers = {"Accept-Encoding": "gzip"}
    async with api.client.stream("GET", "/css/dashboard.css", headers=headers) as zipped:
        sent = b"".join([chunk async for chunk in zipped.aiter_raw()])
    assert zipped.headers["content-encoding"] == "gzip"
    assert gzip.decompress(sent) == plain.content
    assert len(sent) < len(plain.content) // 3  # what crosses the club's Wi-Fi


async def test_vendored_files_are_kept_for_a_day(api: Api) -> None:
    fonts = await api.client.get("/vendor/fonts/fonts.css")
    assert fonts.status_code == 200
    assert fonts.headers["cache-control"] == "public, max-age=86400"


async def test_the_favicon_is_served_where_browsers_ask_for_it(api: Api) -> None:
    icon = await api.client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/svg+xml"
    assert icon.content.lstrip().startswith(b"<svg")
    assert "/favicon.ico" not in (await api.client.get("/openapi.json")).json()["paths"]


async def test_an_app_given_no_dashboard_folder_is_the_api_alone(api: Api) -> None:
    """The service never imports the dashboard: its folder is the composition root's to
    give (`mjtable serve` gives it); without one, the API answers and no page is served."""
    bare = create_app(api.service, api.store)
    transport = httpx.ASGITransport(bare)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
        assert (await client.get("/api/tables")).status_code == 200
        for path in ("/", "/table.html", "/docs", "/favicon.ico"):
            assert (await client.get(path)).status_code == 404, path
    assert (await api.client.get("/favicon.ico")).status_code == 200  # the kit gives it
