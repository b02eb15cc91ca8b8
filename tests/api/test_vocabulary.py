"""GET /api/vocabulary: the rulebook and the 台 table as the pages read them, public (no
token), against the real app over a running service."""

from __future__ import annotations

from table_service.mirror.records import DEAD_HAND_CODES, FAULT_CODES, VIOLATION_CODES
from table_service.mirror.session import PRESETS
from table_service.rules.items import DEALER_ITEMS, DEFAULT_TAI, ITEMS
from table_service.rules.profile import PING_HU_WAITS, RULE_KEYS, load_preset
from table_service.rules.rulebook import BY_CODE
from tests.api.kit import Api


async def test_the_vocabulary_is_the_rulebook_and_public(api: Api) -> None:
    response = await api.client.get("/api/vocabulary")  # no token: a public read
    assert response.status_code == 200, response.text
    words = response.json()
    assert [v["code"] for v in words["violations"]] == list(VIOLATION_CODES)
    assert [f["code"] for f in words["faults"]] == list(FAULT_CODES)
    for row in words["violations"] + words["faults"]:
        assert row == BY_CODE[row["code"]].to_json()
        assert row["zh"] and row["en"] and row["zh_meaning"] and row["en_meaning"]
    dead = {v["code"] for v in words["violations"] if v["dead_hand"]}
    assert dead == DEAD_HAND_CODES
    assert not any(f["dead_hand"] for f in words["faults"])
    assert {v["kind"] for v in words["violations"]} == {"violation"}
    assert {f["kind"] for f in words["faults"]} == {"fault"}
    restriction_7 = BY_CODE["restriction_7"].to_json()
    assert restriction_7["rules"] == ["§3 行牌禁制 7", "D12"]


async def test_every_item_with_its_names_and_default_tai(api: Api) -> None:
    items = (await api.get("/api/vocabulary"))["items"]
    assert [i["id"] for i in items] == [i.id for i in ITEMS] + [d.id for d in DEALER_ITEMS]
    assert {i["id"] for i in items} == set(DEFAULT_TAI)  # every id a profile values
    for got in items:
        assert got["tai"] == DEFAULT_TAI[got["id"]]
        assert got["dealer_tai"] == (got["id"] in ("dealer", "streak"))
    by_id = {i["id"]: i for i in items}
    assert by_id["ping_hu"] == {
        "id": "ping_hu", "zh": "平胡", "en": "all chows", "tai": 2, "dealer_tai": False,
    }  # fmt: skip
    assert by_id["streak"]["zh"] == "連N拉N"


async def test_the_claims_names_and_the_schema(api: Api) -> None:
    claims = (await api.get("/api/vocabulary"))["claims"]
    assert [(c["id"], c["zh"]) for c in claims] == [
        ("chow", "吃"),
        ("pong", "碰"),
        ("kong", "槓"),
        ("win", "胡"),
    ]
    operation = api.app.openapi()["paths"]["/api/vocabulary"]["get"]
    assert not operation.get("security")  # no token needed
    assert "200" in operation["responses"] and "422" in operation["responses"]
    response = await api.client.get("/api/vocabulary", params={"lang": "en"})
    assert response.status_code == 422  # a parameter it does not take is refused
    assert response.json()["detail"][0]["loc"] == ["query", "lang"]


async def test_every_profile_choice_is_named(api: Api) -> None:
    """The pages name §7's choices from here: every switch of `Rules` and `seat_order`,
    each value of a switch that is not yes/no."""
    switches = (await api.get("/api/vocabulary"))["switches"]
    assert [s["key"] for s in switches] == ["seat_order", *RULE_KEYS]
    for switch in switches:
        assert switch["zh"] and switch["en"]
    by_key = {s["key"]: s for s in switches}
    assert [c["id"] for c in by_key["ping_hu_wait"]["choices"]] == list(PING_HU_WAITS)
    assert [c["id"] for c in by_key["seat_order"]["choices"]] == ["opening", "dealer"]
    assert by_key["pass_water_self_draw"]["choices"] is None  # yes or no
    assert all(c["zh"] and c["en"] for s in switches for c in s["choices"] or [])


async def test_the_presets_written_out_are_the_profiles_a_session_is_scored_by(
    api: Api,
) -> None:
    presets = await api.get("/api/profiles")  # public, as the vocabulary
    assert [p["name"] for p in presets] == list(PRESETS)
    for preset in presets:
        resolved = load_preset(preset["name"]).to_mapping()
        assert {k: preset[k] for k in ("seat_order", "tai", "rules")} == {
            k: resolved[k] for k in ("seat_order", "tai", "rules")
        }
    seed001 = {p["name"]: p for p in presets}["seed001"]
    assert seed001["tai"]["five_concealed_pongs"] == 12 and seed001["tai"]["earthly_ready"] == 6
