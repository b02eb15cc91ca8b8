"""The dashboard tests' kit: the real service on a real port, fed through stand-in bridges, and
Chromium to look at it.

- `Site`: a `Service` (its `run()` task, a real broker, an SQLite file) behind `create_app`,
  served by uvicorn in this loop on a fixed port of 127.0.0.1; `stop()` and `start()` again
  give a new service and server on the same port and database (the page must find it).
- `Chrome`: one headless Chromium; `open()` gives a page whose console errors, page errors,
  CSP violations and dialogs are kept (`reported()`).
- `shoot()`: the README's screenshots (docs/screenshots/), written only when
  MJTABLE_SCREENSHOTS=1: `MJTABLE_SCREENSHOTS=1 .venv/bin/pytest tests/dashboard`.

Needs Playwright for Python and a Chromium (Debian's `chromium` at /usr/bin/chromium, or
$MJTABLE_TEST_CHROMIUM); every test module marks itself `needs_browser`, so a machine
without them skips with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from dashboard.tools.vendor_fonts import STATIC
from firmware_bridge.messages import Event
from table_service.service.api import create_app
from table_sim.broker import free_port
from tests.api.kit import (
    BASE_URL,
    Api,
    Bridge,
    clear_retained,
    running_service,
    serving,
    until,
)  # fmt: skip

try:
    from playwright.async_api import Browser, Page, async_playwright
except ImportError:  # a machine without the test extras
    async_playwright = None  # type: ignore[assignment]
    Browser = Page = Any  # type: ignore[assignment,misc]

CHROMIUM = (
    os.environ.get("MJTABLE_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
needs_browser = [
    pytest.mark.skipif(async_playwright is None, reason="Playwright is not installed"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}"),
]

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "docs" / "screenshots"
SCREENSHOT_MAX = 400 * 1024  # bytes: a PNG over this is written as a JPEG instead

HD = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}

# Registered before any page script: every CSP violation the page meets is kept.
WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


# --- the service -----------------------------------------------------------------------


class TableBridge(Bridge):
    """The stand-in bridge of one table, which can also come back online."""

    async def online(self) -> None:
        assert self._client is not None
        await self._client.publish(
            f"{self.base}/{self.table}/bridge/availability", "online", qos=1, retain=True
        )


class Site:
    """The service as the browser sees it: one port, one database, restartable."""

    def __init__(self, mqtt_url: str, db_url: str) -> None:
        self.mqtt_url, self.db_url = mqtt_url, db_url
        self.base = f"dash-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.bridges: list[Bridge] = []  # outlive the service: the tables keep playing
        self._tokens: tuple[str, str, int, int] | None = None
        self._api: Api | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self.starts = 0

    @property
    def api(self) -> Api:
        assert self._api is not None, "the service is not running"
        return self._api

    async def start(self) -> None:
        """A new service and server on the site's port and database."""
        assert self._stack is None, "already running"
        stack = contextlib.AsyncExitStack()
        try:
            service = await stack.enter_async_context(
                running_service(self.mqtt_url, self.db_url, self.base)
            )
            store = service.store
            if self._tokens is None:
                admin_row, admin = store.create_token("admin", "the dashboard tests' admin")
                referee_row, referee = store.create_token("referee", "the dashboard tests")
                self._tokens = (admin, referee, admin_row.id, referee_row.id)
            admin, referee, admin_id, referee_id = self._tokens
            app = create_app(service, store, static=STATIC)
            client = await stack.enter_async_context(
                httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE_URL)
            )
            self._api = Api(
                service, store, app, client, self.mqtt_url, self.base, admin, referee,
                admin_id, referee_id, self.bridges,
            )  # fmt: skip
            await stack.enter_async_context(serving(app, self.port))
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self.starts += 1

    async def stop(self) -> None:
        """The server goes (its sockets close), then the service."""
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()
        self._api = None

    async def close(self) -> None:
        tables = {b.table for b in self.bridges}
        if self._api is not None:
            tables.update(self._api.service.table_names())
        await self.stop()
        for bridge in self.bridges:
            await bridge.__aexit__(None, None, None)
        await clear_retained(self.mqtt_url, self.base, sorted(tables))

    async def bridge(self, table: str) -> TableBridge:
        """The table's bridge (one per table, made on first use)."""
        for bridge in self.bridges:
            if bridge.table == table:
                assert isinstance(bridge, TableBridge)
                return bridge
        bridge = TableBridge(self.mqtt_url, self.base, table)
        await bridge.__aenter__()
        self.bridges.append(bridge)
        return bridge

    async def play(self, table: str, events: Sequence[Event]) -> None:
        """Publish `events` as the table's bridge and wait until the last one is stored."""
        await self.bridge(table)
        await self.api.play(table, events)

    async def publish(self, table: str, events: Sequence[Event]) -> None:
        """Publish `events` without waiting for the service (it may be down)."""
        await (await self.bridge(table)).publish(events)

    async def start_session(self, table: str, players: Sequence[str], **more: Any) -> int:
        response = await self.api.client.post(
            f"/api/tables/{table}/session",
            json={"players": list(players), **more},
            headers=self.api.as_admin,
        )
        assert response.status_code == 201, response.text
        return int(response.json()["id"])

    async def get(self, url: str, **params: Any) -> Any:
        return await self.api.get(url, **params)

    async def until_stored(self, table: str, event: Event, timeout: float = 30.0) -> None:
        key = (event.boot_id, event.seq)
        store = self.api.store
        await until(lambda: store.last_event_key(table) == key, timeout, f"{table} at {key}")


# --- the browser -----------------------------------------------------------------------


class Chrome:
    """A headless Chromium and what its pages reported."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.problems: list[str] = []  # console errors and page errors
        self.dialogs: list[str] = []
        self.pages: list[Page] = []

    async def open(
        self, url: str, viewport: dict[str, int] | None = None, scale: float = 1
    ) -> Page:
        """A new page at `url` (1920×1080 by default), watched."""
        page = await self.browser.new_page(
            viewport=viewport or HD, device_scale_factor=scale, locale="zh-TW"
        )
        self.pages.append(page)

        def console(message: Any) -> None:
            if message.type == "error":
                self.problems.append(f"{message.text} ({message.location.get('url')})")

        async def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            await d.dismiss()

        await page.add_init_script(WATCH_CSP)
        page.on("console", console)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("dialog", dialog)
        await page.goto(url)
        return page

    async def reported(self, ignore: Sequence[str] = ()) -> list[str]:
        """Every console error, page error, CSP violation and dialog so far, but those
        containing one of `ignore`."""
        found = list(self.problems) + [f"dialog: {d}" for d in self.dialogs]
        for page in self.pages:
            if not page.is_closed():
                found += [f"CSP: {v}" for v in await page.evaluate("window.__csp ?? []")]
        return [p for p in found if not any(words in p for words in ignore)]


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Chrome]:
    assert async_playwright is not None
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield Chrome(browser)
        finally:
            await browser.close()


# --- reading the page ------------------------------------------------------------------

RIVER = """(seat) => [...document.querySelectorAll(
  `.board .seat[data-seat="${seat}"] .river svg.tile`)].map((t) => t.dataset.code)"""


async def river(page: Page, seat: int) -> list[str]:
    """The tile codes of a seat's discards as the page draws them."""
    return list(await page.evaluate(RIVER, seat))


async def keep_token(page: Page, key: str, token: str) -> None:
    """The page as a tab that keeps `token` under `key` (api.js tokenStore): reloaded."""
    await page.evaluate("([k, v]) => sessionStorage.setItem(k, v)", [key, token])
    await page.reload()


async def fonts_ready(page: Page) -> None:
    await page.evaluate("document.fonts.ready.then(() => true)")


# --- screenshots -----------------------------------------------------------------------


def screenshots_wanted() -> bool:
    return os.environ.get("MJTABLE_SCREENSHOTS") == "1"


async def shoot(page: Page, name: str) -> Path | None:
    """docs/screenshots/<name>.png of the page as it is (its animations stopped), or .jpg
    (quality 80) when the PNG would be over 400 KB; only when MJTABLE_SCREENSHOTS=1."""
    if not screenshots_wanted():
        return None
    await fonts_ready(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    data = await page.screenshot(type="png", animations="disabled")
    path = SCREENSHOTS / f"{name}.png"
    if len(data) > SCREENSHOT_MAX:
        data = await page.screenshot(type="jpeg", quality=80, animations="disabled")
        path = SCREENSHOTS / f"{name}.jpg"
    for old in (SCREENSHOTS / f"{name}.png", SCREENSHOTS / f"{name}.jpg"):
        if old != path:
            old.unlink(missing_ok=True)
    path.write_bytes(data)
    return path


async def snap(page: Page, name: str) -> None:
    """A look at the page for whoever works on it, when MJTABLE_LOOK=1: /tmp/<name>-hd.png
    and /tmp/<name>-phone.png (1920×1080 and 390×844, the whole page)."""
    if os.environ.get("MJTABLE_LOOK") != "1":
        return
    was = page.viewport_size
    for size, viewport in (("hd", HD), ("phone", PHONE)):
        await page.set_viewport_size(viewport)
        await page.wait_for_timeout(100)
        await fonts_ready(page)
        await page.screenshot(path=f"/tmp/{name}-{size}.png", full_page=True)
    if was:
        await page.set_viewport_size(was)


# --- the pages' modules (the preload lists and the fonts read them) --------------------

ENTRY = re.compile(r'<script type="module" src="js/([\w-]+\.js)"></script>')


IMPORT = re.compile(r'^\s*(?:import|export)\b[^;]*?\bfrom\s+"\./([\w-]+\.js)"', re.M)


BARE = re.compile(r'^\s*import\s+"\./([\w-]+\.js)"', re.M)


PAGES = sorted(p for p in STATIC.glob("*.html") if ENTRY.search(p.read_text("utf-8")))


def imports(module: str, seen: set[str] | None = None) -> set[str]:
    """Every module `module` imports, directly or not (static imports only)."""
    seen = set() if seen is None else seen
    text = (STATIC / "js" / module).read_text(encoding="utf-8")
    for name in IMPORT.findall(text) + BARE.findall(text):
        if name not in seen:
            seen.add(name)
            imports(name, seen)
    return seen
