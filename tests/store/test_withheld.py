"""What the public reads of the violations: a void declaration (a seat declared ready on a
hand that is not) only once its hand has ended; the referee at once."""

from __future__ import annotations

from firmware_bridge.messages import Event
from table_service.mirror import TableMirror
from table_service.service.disclosure import WITHHELD
from table_service.store import Applied, Store
from tests.mirror.kit_script import Script, quiet


def test_a_void_declaration_is_public_only_after_its_hand(store: Store) -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.button(2, "ready")  # a quiet hand waits on nothing: void
    during = len(t.events)
    while t.drawable > 0:
        t.cycle(t.next_seat)
    t.finish()
    mirror = TableMirror(t.table)
    body = t.session.recorded().model_dump(mode="json")
    store.append(t.table, [Applied("session", None, body, mirror.start_session(t.session))])

    def stored(events: list[Event]) -> None:
        store.append(t.table, [Applied("event", e, None, mirror.apply(e)) for e in events])

    stored(t.events[:during])
    referee = [v.code for v in store.violations(t.table)]
    public = [v.code for v in store.violations(t.table, withhold=WITHHELD)]
    assert "void_declaration" in referee and "void_declaration" not in public
    assert public == [c for c in referee if c != "void_declaration"]
    stored(t.events[during:])  # the hand ends (荒局): its void declaration is public now
    assert store.hands(t.table, None, 10, None), "the hand is stored"
    assert [v.code for v in store.violations(t.table, withhold=WITHHELD)] == referee
