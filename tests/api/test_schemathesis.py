"""Property-based requests from the OpenAPI schema (schemathesis) against a real server, with every
check schemathesis has: no 5xx, only documented statuses and content types, responses matching
their schema, schema-invalid requests refused, schema-valid ones accepted, auth enforced.

Documented exceptions, each because the wire or the design makes one check meaningless for one
spot (never every check of an operation):
- positive_data_acceptance on the content-checked uploads (`POST /api/messages`,
  `POST /api/kb/documents`, `POST /api/import`): a schema can say "a file" or "a list of items",
  not "a readable PDF" or "an item with a valid timestamp"; the parsers answer 400/415 naming
  the problem (items are validated one by one so a bad item never blocks the good ones). The
  same for rules across fields or against the clock (CROSS_FIELD below).
- negative data that is valid on the wire: a query array given one scalar value (`?channel=x`
  *is* a one-element array) and a multipart file part "mutated" into a number (its bytes are a
  perfectly good file).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance
from schemathesis.core.failures import FailureGroup

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer

pytestmark = pytest.mark.slow

EXAMPLES_PER_OPERATION = 10  # per generation mode; keeps the test under ~60 s on 2 cores
CONTENT_CHECKED = {"POST /api/messages", "POST /api/kb/documents", "POST /api/import"}
# Rules across fields or against the clock, which a JSON schema cannot state: a bulk deletion
# needs at least one filter; snoozing an insight needs an `until` in the future (400 otherwise).
CROSS_FIELD = {
    "POST /api/messages/deletions/preview",
    "POST /api/messages/deletions",
    "POST /api/insights/{insight_id}/lifecycle",
    # Not a schema rule at all: under the tests' fixed clock every export/backup names the same folder,
    # and the second one is refused (400; a 409 would fit better, noted for the lifecycle owner).
    "POST /api/export",
    "POST /api/backup",
}


def test_generated_requests_pass_every_check(services):
    # `reveal=true` answers 400 unless [privacy] allow_reveal is on (the privacy issue's choice);
    # with the setting on, every documented parameter can be exercised.
    services.settings.privacy.allow_reveal = True
    token = load_or_create_token(services.layout.token_file)
    failures: list[str] = []
    seen: list[str] = []
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    with BackgroundServer(create_app(services)) as server:
        schema = schemathesis.openapi.from_url(f"{server.url}/api/openapi.json")
        for result in schema.get_all_operations():
            operation = result.ok()
            name = f"{operation.method.upper()} {operation.path}"
            seen.append(name)
            excluded = [positive_data_acceptance] if name in CONTENT_CHECKED | CROSS_FIELD else []
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                _exercise(operation.as_strategy(mode), token, excluded, statuses, failures, name)

    assert {"GET /api/search", "POST /api/messages", "DELETE /api/messages/{message_id}"} <= set(seen)
    assert not failures, "\n".join(failures)
    assert statuses[200] > 0 and statuses[422] > 0 and statuses[401] > 0
    print(f"schemathesis: {len(seen)} operations, {dict(statuses)} in {time.monotonic() - started:.1f}s")


def _with_token(case, token: str) -> None:
    """Schemathesis generates the Authorization header itself (a random bearer when valid, absent or
    malformed when testing auth); a well-formed one is swapped for the real token."""
    headers = case.headers if case.headers is not None else {}
    current = headers.get("Authorization")
    if current is None and case.meta.generation.mode == GenerationMode.POSITIVE:
        current = "Bearer "
    if isinstance(current, str) and current.startswith("Bearer "):
        headers["Authorization"] = f"Bearer {token}"
        case.headers = headers


# Query values are strings on the wire: `?person=x` is a one-element array whatever the generator
# meant, and an optional string parameter whose null "became 513" is just the string "513".
ARRAY_QUERY = {"platform", "channel", "person", "me"}
VIOLATION = re.compile(r"violates `(\w+)` at /properties/(\w+)(\S*)(.*)")
IN_QUERY = re.compile(r"parameters? ((?:`\w+`(?:, )?)+) in query")


def _wire_valid(failure_text: str) -> bool:
    """A "schema-violating request accepted" whose only violations cannot be seen on the wire."""
    if "Schema-violating request accepted" not in failure_text:
        return False
    query = {n for m in IN_QUERY.finditer(failure_text) for n in re.findall(r"`(\w+)`", m.group(1))}
    found = [VIOLATION.search(line) for line in failure_text.splitlines()]
    violations = [m.groups() for m in found if m]

    def harmless(kind: str, name: str, where: str, rest: str) -> bool:
        if name in ARRAY_QUERY and kind in ("anyOf", "type"):
            return True
        if name in query and ("was null, became" in rest or "became object" in rest):
            return True  # an empty object vanishes from a query string
        return name == "file" and "was string" in rest  # multipart: any bytes are a file

    return bool(violations) and all(harmless(*v) for v in violations)


def _exercise(strategy, token, excluded, statuses: Counter[int], failures: list[str], name: str) -> None:
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        # Fixed generation: CI sees the same requests every run (a new failure is a real change).
        derandomize=True,
    )
    def exercise(case) -> None:
        _with_token(case, token)
        try:
            response = case.call_and_validate(excluded_checks=excluded, timeout=30)
        except FailureGroup as group:
            text = str(group)
            if not _wire_valid(text):
                failures.append(f"{name}: {text[:1500]}")
            return
        statuses[response.status_code] += 1

    # No invalid request exists for an operation without inputs (negative mode on /health).
    with contextlib.suppress(Unsatisfiable):
        exercise()
