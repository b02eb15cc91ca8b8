"""A void declaration during its hand: the referee reads it at once (with a token), the
public's lists and live channels only when the hand has ended."""

from __future__ import annotations

from tests.api.kit import Api
from tests.mirror.kit_script import Script, quiet


def void_hand() -> tuple[Script, int]:
    """A quiet hand where seat 2 declares ready on a hand that is not; where it ends."""
    t = Script(quiet(), table="v1")
    t.discard(0, "2m")
    t.button(2, "ready")
    during = len(t.events)
    while t.drawable > 0:
        t.cycle(t.next_seat)
    t.finish()
    return t, during


async def test_the_public_hears_a_void_declaration_when_its_hand_ends(api: Api) -> None:
    t, during = void_hand()
    await api.play("v1", t.events[:during])
    codes = [v["code"] for v in await api.get_as(api.as_referee, "/api/violations")]
    assert "void_declaration" in codes
    assert "void_declaration" not in [v["code"] for v in await api.get("/api/violations")]
    wrong = await api.client.get("/api/violations", headers=api.auth("not-a-token"))
    assert wrong.status_code == 401  # a token given must be a real one
    await api.play("v1", t.events[during:])
    assert "void_declaration" in [v["code"] for v in await api.get("/api/violations")]
