"""Schemathesis over the app's own OpenAPI schema: generated requests (valid ones, and
invalid ones) to every route, with an admin token, against a service that played part of
a game. No response is a 5xx, and every one conforms to the schema: a declared status, a
declared content type, a body that fits the declared model, the declared headers.

Schemathesis' own ASGI client runs the app in an event loop of its own; the app must run
in the service's (its writes go through the service's queue). So the cases are drawn and
checked in a worker thread, and each request is sent into this loop through httpx.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import schemathesis.core.storage
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from hil_tests.simulator.recording import RecordedHand
from tests.api.kit import BASE_URL, Api, events_of

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EXAMPLES = {GenerationMode.POSITIVE: 50, GenerationMode.NEGATIVE: 30}  # per route


@pytest.fixture(autouse=True)
def schemathesis_keeps_its_files_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Schemathesis writes a `.schemathesis/` cache into the working directory: not ours."""
    monkeypatch.setattr(schemathesis.core.storage, "DEFAULT_ROOT", tmp_path / ".schemathesis")


async def test_every_route_keeps_to_its_schema(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game, "t1")[:700])  # two hands, breaches, one in play
    schema = schemathesis.openapi.from_asgi("/openapi.json", api.app)
    loop = asyncio.get_running_loop()
    admin = [api.admin]
    statuses: Counter[tuple[str, str, int]] = Counter()

    def token() -> dict[str, str]:
        # a generated DELETE /api/tokens/{id} may revoke the admin's own token: a new one
        if api.store.token_for(admin[0]) is None:
            admin[0] = api.store.create_token("admin", "schemathesis")[1]
        return api.auth(admin[0])

    async def send(request: dict[str, Any]) -> httpx.Response:
        body: dict[str, Any] = {}
        if "json" in request:
            body["json"] = request["json"]
        elif isinstance(request.get("data"), bytes | str):
            body["content"] = request["data"]
        elif request.get("data") is not None:
            body["data"] = request["data"]
        return await api.client.request(
            request["method"], request["url"], headers=request["headers"],
            params=request.get("params"), **body,
        )  # fmt: skip

    def check(case: Case, mode: GenerationMode) -> None:
        headers = token()
        request = case.as_transport_kwargs(base_url=BASE_URL, headers=headers)
        response = asyncio.run_coroutine_threadsafe(send(request), loop).result(60)
        statuses[case.operation.label, mode.value, response.status_code] += 1
        checks = CHECKS + ([negative_data_rejection] if mode is GenerationMode.NEGATIVE else [])
        case.validate_response(response, checks=checks, headers=headers)

    def fuzz(operation: Any, mode: GenerationMode) -> None:
        @settings(
            max_examples=EXAMPLES[mode],
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def test(case: Case) -> None:
            check(case, mode)

        test()

    def run() -> list[str]:
        tested = []
        for result in schema.get_all_operations():
            operation = result.ok()
            inputs = [operation.path_parameters, operation.query, operation.body]
            for mode in EXAMPLES:
                if mode is GenerationMode.POSITIVE or any(len(i) for i in inputs):
                    fuzz(operation, mode)  # a route that takes nothing has no bad input
            tested.append(operation.label)
        return tested

    tested = await asyncio.to_thread(run)
    paths = api.app.openapi()["paths"]
    operations = sum(len(methods) for path, methods in paths.items() if path.startswith("/api"))
    assert len(tested) == operations, tested  # every route of the schema was exercised
    for key, n in sorted(statuses.items()):
        print(key, n)
