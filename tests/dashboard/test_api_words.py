"""The pages' copies of the API's words (dashboard/static/js/api.js) are the Python
definitions: a table id's pattern and the wind codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from firmware_bridge.messages import TABLE_PATTERN
from table_service.rules.tiles import WIND_CODES

API_JS = Path(__file__).parents[2] / "dashboard" / "static" / "js" / "api.js"


def _constant(name: str) -> str:
    found = re.search(rf"^export const {name} = (.+);$", API_JS.read_text(), re.MULTILINE)
    assert found is not None, f"api.js exports no {name}"
    return found.group(1)


def test_the_pages_read_a_table_id_as_the_api_does() -> None:
    assert _constant("TABLE_PATTERN") == f"/{TABLE_PATTERN}/"


def test_the_pages_write_the_winds_as_the_records_do() -> None:
    assert tuple(json.loads(_constant("WINDS"))) == WIND_CODES
