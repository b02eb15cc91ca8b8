"""Schemathesis' auth for the CLI run of test_schema.py (loaded with SCHEMATHESIS_HOOKS):
an admin token on every request, minted afresh through the store whenever a generated
`DELETE /api/tokens/{id}` revoked the one in use."""

from __future__ import annotations

import os
from typing import Any

import schemathesis

from table_service.store import Store

_store: list[Store] = []
_secret = [os.environ.get("MJTABLE_SCHEMA_TOKEN", "")]


@schemathesis.auth(refresh_interval=None)
class Admin:
    def get(self, case: Any, context: Any) -> str:
        if not _store:
            _store.append(Store(os.environ["MJTABLE_SCHEMA_STORE"]))
        if _store[0].token_for(_secret[0]) is None:
            _secret[0] = _store[0].create_token("admin", "schemathesis")[1]
        return _secret[0]

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
