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
import os
import sys
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

from dashboard import STATIC
from table_service.rules.profile import PING_HU_WAITS, RULE_KEYS, SHORTHANDS, TAI_IDS
from table_service.service.api import create_app
from table_sim.recording import RecordedHand
from tests.api.kit import BASE_URL, Api, events_of, serving

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
        # a query parameter whose value is an empty list is not in the URL at all, so a
        # case whose only bad part it is reaches the app as a good request
        sent_bad = not any(v == [] for v in (case.query or {}).values())
        negative = mode is GenerationMode.NEGATIVE and sent_bad
        checks = CHECKS + ([negative_data_rejection] if negative else [])
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


async def test_schemathesis_with_every_check_and_its_stateful_phase_finds_nothing(
    api: Api, game: list[RecordedHand], store_url: str, tmp_path: Path
) -> None:
    """The campaign's own run: `schemathesis run` against the served app, every check,
    every phase (examples, coverage, fuzzing, stateful), with an admin token."""
    await api.play("t1", events_of(game, "t1")[:700])
    # the guessing limit is not what this run is about: schemathesis' auth checks send
    # requests without a token or with a wrong one, by the hundred
    app = create_app(api.service, api.store, static=STATIC, auth_free=10**9)
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.api.kit_schemathesis",
        "MJTABLE_SCHEMA_STORE": store_url,
        "MJTABLE_SCHEMA_TOKEN": api.admin,
        "PYTHONPATH": str(Path(__file__).parents[2]),
    }
    # deeper on SQLite; PostgreSQL, whose every route the test above already exercises,
    # gets a shorter one (what it adds is its storage's own refusals). A deeper campaign
    # on demand: MJTABLE_SCHEMA_EXAMPLES=100
    default = "25" if store_url.startswith("sqlite") else "10"
    examples = os.environ.get("MJTABLE_SCHEMA_EXAMPLES", default)
    async with serving(app) as url:
        process = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "schemathesis"), "run", f"{url}/openapi.json",
            "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", examples, "--seed", os.environ.get("MJTABLE_SCHEMA_SEED", "7"),
            "--workers", "1", "--no-color",
            "--report-dir", str(tmp_path), "--suppress-health-check", "all",
            cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        out, _ = await asyncio.wait_for(process.communicate(), 1500)
    text = out.decode(errors="replace")
    assert process.returncode == 0, text[-12000:]
    assert "Stateful" in text, text[-3000:]  # the stateful phase ran


async def test_the_profile_schema_takes_exactly_what_the_profile_code_takes(api: Api) -> None:
    """[tai] and [rules] are derived from the profile's own keys: an unknown key is refused
    by the schema and by the API alike; every route that takes a token declares 429."""
    openapi = api.app.openapi()
    profile = openapi["components"]["schemas"]["ProfileBody"]
    assert profile["additionalProperties"] is False
    assert set(profile["properties"]) == {"preset", *SHORTHANDS, "seat_order", "tai", "rules"}
    for key, known in (("rules", RULE_KEYS), ("tai", TAI_IDS)):
        table = profile["properties"][key]
        assert table["additionalProperties"] is False
        assert list(table["properties"]) == list(known)
        body = {"profile": {key: {"no_such_key": True if key == "rules" else 1}}}
        response = await api.client.post("/api/tables/t1/session", json=body, headers=api.as_admin)
        assert response.status_code == 422, response.text
        assert f"{key}.no_such_key: unknown" in response.json()["error"]
    assert profile["properties"]["rules"]["properties"]["ping_hu_wait"]["enum"] == list(
        PING_HU_WAITS
    )
    secured = 0
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            if operation.get("security"):
                secured += 1
                assert "429" in operation["responses"], (method, path)
                assert "retry-after" in {
                    h.lower() for h in operation["responses"]["429"]["headers"]
                }
    assert secured >= 7  # every write, and the token list (at least)
    assert await api.get("/api/sessions") == []
