"""The rulebook against the code list and the rules text: one row per violation and fault
code, in the mirror's order; every violation code of taiwan16.md §3's table; every rule it
cites is in the text; 相公 as the seeds list it (D9)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from table_service.mirror.records import DEAD_HAND_CODES, FAULT_CODES, VIOLATION_CODES
from table_service.rules import rulebook
from table_service.rules.rulebook import BY_CODE, DEAD_HAND, FAULTS, RULEBOOK, VIOLATIONS

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
TAIWAN16 = (RULES / "taiwan16.md").read_text(encoding="utf-8")
CJK = re.compile(r"[\u3400-\u9fff]")

# Seed 000's 相公 list (缺張、逾張、錯吃碰槓、花牌未補、花牌打出、吃入打出、打出吃入) and its
# priority rule (a claim made after losing its priority): the breaches that make a seat 相公.
DEAD = {  # D9 follows the seeds' list: 缺張/逾張, 錯吃碰槓, 花牌未補, 花牌打出, 錯位摸補, 搶摸, …
    "out_of_turn",
    "wrong_end",
    "replacement_order",
    "chow_not_from_left",
    "restriction_6",
    "late_claim",
    "hand_size",
    "flower_discarded",
}


def section_3_codes() -> list[str]:
    """The codes of taiwan16.md §3's "Violation codes" table, `a` … `b` ranges expanded."""
    table = TAIWAN16.split("### Violation codes", 1)[1].split("\n### ", 1)[0]
    codes: list[str] = []
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        named = re.findall(r"`([a-z_0-9]+)`", cell)
        if "…" in cell:
            (first, last) = named
            stem = first.rstrip("0123456789")
            codes += [
                f"{stem}{n}" for n in range(int(first[len(stem) :]), int(last[len(stem) :]) + 1)
            ]
        else:
            codes += named
    return codes


def section(n: int) -> str:
    """The text of taiwan16.md's section `## n.`."""
    return TAIWAN16.split(f"\n## {n}. ", 1)[1].split("\n## ", 1)[0]


def test_one_row_per_code_in_the_mirrors_order() -> None:
    assert [row.code for row in VIOLATIONS] == list(VIOLATION_CODES)
    assert [row.code for row in FAULTS] == list(FAULT_CODES)
    assert RULEBOOK == VIOLATIONS + FAULTS
    assert {row.kind for row in VIOLATIONS} == {"violation"}
    assert {row.kind for row in FAULTS} == {"fault"}
    assert list(BY_CODE) == [row.code for row in RULEBOOK]


def test_every_violation_code_of_section_3_has_a_row() -> None:
    codes = section_3_codes()
    assert len(codes) == 22 and "restriction_5" in codes  # the table was read whole
    assert codes == [row.code for row in VIOLATIONS]


def test_every_rule_cited_is_in_the_text() -> None:
    decisions = set(re.findall(r"^- (D\d+)\.", TAIWAN16, re.M))
    restrictions = re.findall(
        r"^  (\d)\. ", TAIWAN16.split("- 行牌禁制", 1)[1].split("\n- ", 1)[0], re.M
    )
    for row in RULEBOOK:
        assert row.rules, row.code
        for ref in row.rules:
            if ref.startswith("D"):
                assert ref in decisions, (row.code, ref)
            elif ref.startswith("§"):
                number, _, term = ref[1:].partition(" ")
                text = section(int(number))
                if term.startswith("行牌禁制 "):
                    assert term.split()[1] in restrictions, (row.code, ref)
                else:
                    assert term and term in text, (row.code, ref)
            else:
                page, _, words = ref.partition(": ")
                path = RULES / page if (RULES / page).exists() else ROOT / page
                assert path.exists(), (row.code, ref)
                assert words.lower() in path.read_text(encoding="utf-8").lower(), (row.code, ref)
        if row.code.startswith("restriction_"):
            assert row.rules[0] == f"§3 行牌禁制 {row.code.rsplit('_', 1)[1]}"


def test_the_fault_codes_of_replay_format_cite_it() -> None:
    text = (RULES / "replay-format.md").read_text(encoding="utf-8")
    codes = text.split("codes:", 1)[1].split("No player", 1)[0]
    listed = re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", codes))  # not the asides
    assert "fifth_copy" in listed and "gap" in listed
    for code in listed:
        assert BY_CODE[code].kind == "fault"
        assert "replay-format.md: fault" in BY_CODE[code].rules


def test_dead_hand_as_the_seeds_list_it() -> None:
    assert DEAD_HAND == DEAD == {row.code for row in RULEBOOK if row.dead_hand}
    assert DEAD_HAND_CODES == DEAD_HAND  # the mirror's, from the rulebook
    assert not any(row.dead_hand for row in FAULTS)  # nobody is blamed for a fault
    for row in VIOLATIONS:
        if row.dead_hand:
            assert "D9" in row.rules, row.code
            assert "（相公）" in row.zh_meaning and "dead hand" in row.en_meaning, row.code


def test_names_and_meanings_in_both_languages() -> None:
    for row in RULEBOOK:
        assert CJK.search(row.zh) and CJK.search(row.zh_meaning), row.code
        assert row.en.isascii() and row.en[0].isupper(), row.code
        assert row.en_meaning.strip() and row.en_meaning == " ".join(row.en_meaning.split())
        assert set(row.to_json()) == {f.name for f in dataclasses.fields(row)}
    assert len({row.zh for row in RULEBOOK}) == len(RULEBOOK)  # no two codes share a name
    assert len({row.en for row in RULEBOOK}) == len(RULEBOOK)
    assert [(c.id, c.zh) for c in rulebook.CLAIMS] == [
        ("chow", "吃"),
        ("pong", "碰"),
        ("kong", "槓"),
        ("win", "胡"),
    ]


def test_rows_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        VIOLATIONS[0].dead_hand = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        BY_CODE["gap"] = VIOLATIONS[0]  # type: ignore[index]
