"""What the bridges say of themselves (`…/bridge/availability`, `…/bridge/link`), read
defensively: any retained message on a broker with no ACL can be anything, and one the
service cannot read is refused with a reason, never raised (a retained bad one would
otherwise stop the service again at every restart)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from aiomqtt import Topic
from pydantic import ValidationError

from firmware_bridge.messages import TABLE_PATTERN, LinkStatus, Topics

TABLE_NAME: Final = re.compile(TABLE_PATTERN)  # the API's table ids
QUOTE: Final = 120  # bytes of a refused payload a log line quotes


@dataclass(frozen=True)
class BridgeNews:
    """One bridge message understood: the table's availability or its link state."""

    table: str
    online: bool | None = None  # set by an availability message
    link: dict[str, Any] | None = None  # set by a link message (LinkStatus as JSON)


def read_bridge_message(base: str, topic: str, payload: bytes) -> BridgeNews | str:
    """The news in one message on `<base>/<table>/bridge/{availability,link}`, or why not."""
    every = Topics(base, "+")
    try:
        heard = Topic(topic)
    except ValueError:
        return "not a topic a message arrives on"
    read = {"availability": every.availability, "link": every.link}
    what = next((w for w, pattern in read.items() if heard.matches(pattern)), None)
    if what is None:
        return "not a bridge topic the service reads (availability, link)"
    table = every.table_in(topic)
    if not TABLE_NAME.fullmatch(table):
        return "table: not a table id (1-32 letters, digits, '_' or '-')"
    if what == "availability":
        text = payload.decode("utf-8", errors="replace")
        if text not in ("online", "offline"):
            return "availability: neither 'online' nor 'offline'"
        return BridgeNews(table, online=text == "online")
    try:
        status = LinkStatus.model_validate_json(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        return f"link: {where}: {first['msg']}"
    if status.table != table:
        return f"link: table {status.table!r} published under {table!r}"
    return BridgeNews(table, link=status.model_dump(mode="json"))


def quoted(payload: bytes) -> str:
    """At most QUOTE bytes of a payload, for a log line (a reader needs no more)."""
    more = len(payload) - QUOTE
    return repr(payload[:QUOTE]) + (f" … ({more} bytes more)" if more > 0 else "")
