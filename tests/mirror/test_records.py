"""The judgement records as values: read back exactly as written, never changed, never
widened (the service stores them and the dashboard reads them back)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from table_service.mirror.records import Fault, Item, PaymentRecord, Violation

VIOLATION = {
    "type": "violation", "table": "t1", "boot_id": 1, "seq": 9, "seat": 2,
    "code": "out_of_turn", "detail": "seat 2 drew out of turn",
}  # fmt: skip


def test_a_record_with_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Violation.model_validate({**VIOLATION, "note": "x"})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Item.model_validate({"id": "dealer", "tai": 1, "zh": "莊家"})


def test_a_record_cannot_be_changed() -> None:
    record = Violation.model_validate(VIOLATION)
    with pytest.raises(ValidationError, match="Instance is frozen"):
        record.seat = 3  # type: ignore[misc]
    fault = Fault(table="t1", boot_id=1, seq=3, code="gap", detail="seq jumped")
    with pytest.raises(ValidationError, match="Instance is frozen"):
        fault.code = "impossible"  # type: ignore[misc]


def test_an_item_without_names_reads_null() -> None:
    assert Item(id="dealer", tai=1).model_dump() == {
        "id": "dealer", "tai": 1, "name": None, "en": None,
    }  # fmt: skip


def test_a_payment_speaks_the_wire_names() -> None:
    """replay-format.md: {"from", "to", "amount", "tai", "dealer_tai"}."""
    wire = {"from": 0, "to": 1, "amount": 240, "tai": 6, "dealer_tai": 1}
    payment = PaymentRecord.model_validate(wire)
    assert (payment.payer, payment.payee) == (0, 1)
    assert payment.model_dump(by_alias=True) == wire
    with pytest.raises(ValidationError, match="from"):
        PaymentRecord.model_validate(
            {"payer": 0, "payee": 1, "amount": 1, "tai": 0, "dealer_tai": 0}
        )
