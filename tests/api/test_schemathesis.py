"""Property-based requests from the OpenAPI schema (schemathesis) against a real server: no 5xx, ever."""

from __future__ import annotations

import contextlib
import time
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer

pytestmark = pytest.mark.slow

EXAMPLES_PER_OPERATION = 12  # per generation mode; keeps the test around 30-60 s


def test_generated_requests_never_get_a_server_error(services):
    token = load_or_create_token(services.layout.token_file)
    auth = {"Authorization": f"Bearer {token}"}
    failures: list[str] = []
    seen: list[str] = []
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    with BackgroundServer(create_app(services)) as server:
        schema = schemathesis.openapi.from_url(f"{server.url}/api/openapi.json")
        for result in schema.get_all_operations():
            operation = result.ok()
            seen.append(f"{operation.method.upper()} {operation.path}")
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                _exercise(operation.as_strategy(mode), auth, statuses, failures)

    assert {"GET /api/search", "POST /api/messages", "DELETE /api/messages/{message_id}"} <= set(seen)
    assert not failures, failures
    assert statuses[200] > 0 and statuses[422] > 0  # valid requests worked, invalid ones were refused
    print(f"schemathesis: {len(seen)} operations, {dict(statuses)} in {time.monotonic() - started:.1f}s")


def _exercise(strategy, auth: dict[str, str], statuses: Counter[int], failures: list[str]) -> None:
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def exercise(case) -> None:
        response = case.call(headers=auth, timeout=30)
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}")
        elif response.status_code >= 400 and not {"error", "message"} <= set(response.json()):
            failures.append(f"{case.method} {case.formatted_path}: error body {response.text[:200]}")

    # No invalid request exists for an operation without inputs (negative mode on /health).
    with contextlib.suppress(Unsatisfiable):
        exercise()
