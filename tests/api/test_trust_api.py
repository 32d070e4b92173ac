"""REST over real HTTP on 127.0.0.1: bad items among good ones, strict booleans, storage errors, and
addressing a message by platform + message id."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from app.api.app import create_app
from app.api.server import BackgroundServer
from tests.core.faults import count_rows, database_full

TOKEN = "t" * 43


@pytest.fixture
def http(services) -> Iterator[httpx.Client]:
    with (
        BackgroundServer(create_app(services, token=TOKEN)) as server,
        httpx.Client(base_url=server.url + "/api", headers={"Authorization": f"Bearer {TOKEN}"}) as c,
    ):
        yield c


def item(n: int, **kw: object) -> dict[str, object]:
    return {
        "platform": "slack",
        "message_id": f"t{n}",
        "channel": "ops",
        "person": "kim",
        "timestamp": 1_763_700_000_000 + n,
        "content": f"deploy window number {n}",
        **kw,
    }


def post_raw(http: httpx.Client, body: dict) -> httpx.Response:
    # ensure_ascii: the lone surrogate goes over the wire as the JSON escape \ud800, as clients send it.
    return http.post("/messages", content=json.dumps(body), headers={"Content-Type": "application/json"})


def test_a_surrogate_among_good_items_stores_every_item(http, services) -> None:
    before = count_rows(services)
    batch = [item(1), item(2, content="bad \ud800 here"), item(3, content="half an emoji \ud83d"), item(4)]
    r = post_raw(http, {"messages": batch})
    assert r.status_code == 200, r.text
    assert (r.json()["imported"], r.json()["errors"]) == (4, [])
    assert count_rows(services) == before + 4
    stored = http.get("/messages/by-source/slack/t2").json()
    assert stored["content"] == "bad \ufffd here"


def test_bad_items_are_reported_by_position_and_the_rest_stored(http) -> None:
    deep: dict = {"leaf": 1}
    for _ in range(200):
        deep = {"a": deep}
    batch = [item(10), item(11, metadata=deep), item(12, channel="c" * 5000), item(13)]
    r = post_raw(http, {"messages": batch})
    assert r.status_code == 200 and r.json()["imported"] == 2
    assert [(e["line"], e["message_id"]) for e in r.json()["errors"]] == [(2, "t11"), (3, "t12")]
    assert "nested more than 32 levels" in r.json()["errors"][0]["reason"]


def test_a_batch_where_every_item_fails_is_an_error_status(http) -> None:
    r = post_raw(http, {"messages": [{"platform": "x"}, item(20, timestamp="never")]})
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == "invalid_input" and "none of the 2 messages" in body["message"]
    assert "item 2: invalid timestamp" in body["message"]


def test_a_full_database_answers_503_storage_error_and_stores_nothing(http, services) -> None:
    before = count_rows(services)
    batch = [item(100 + i, content=f"note {i} " + "lorem ipsum " * 300) for i in range(200)]
    with database_full(services.db):
        r = post_raw(http, {"messages": batch})
    assert r.status_code == 503, r.text
    assert r.json()["error"] == "storage_error" and "full" in r.json()["message"]
    assert count_rows(services) == before  # one transaction: none of the 200
    assert post_raw(http, {"messages": batch}).json()["imported"] == 200


def test_booleans_are_strict(http, services) -> None:
    record_id = post_raw(http, {"messages": [item(30)]}).json()["ids"][0]
    assert http.post(f"/messages/{record_id}/pin", json={"pinned": True}).json()["is_pinned"] is True
    r = http.post(f"/messages/{record_id}/pin", json={"pinned": 0})
    assert r.status_code == 422 and r.json()["error"] == "validation_error"
    assert services.memory.get(record_id).is_pinned  # not quietly unpinned
    runs_before = len(services.forgetting.runs())
    for body in ({"dryRun": 0}, {"dryRun": "false"}, {"dryRun": 1}):
        assert http.post("/forgetting/run", json=body).status_code == 422
    assert len(services.forgetting.runs()) == runs_before  # no real run happened
    assert http.post("/forgetting/preview", json={"details": 0}).status_code == 422
    assert http.post("/forgetting/run", json={"dryRun": True}).status_code == 200


def test_message_by_platform_and_message_id(http) -> None:
    ids = post_raw(http, {"messages": [item(40, message_id="C1/1700000000.000100"), item(41)]}).json()["ids"]
    r = http.get("/messages/by-source/Slack/C1/1700000000.000100", params={"context": 1})
    assert r.status_code == 200, r.text
    assert (r.json()["id"], r.json()["message_id"]) == (ids[0], "C1/1700000000.000100")
    assert r.json()["neighbours"]
    assert http.get(f"/messages/{ids[1]}").json()["message_id"] == "t41"  # the record-id route stays
    missing = http.get("/messages/by-source/slack/nope")
    assert missing.status_code == 404 and "no slack message with id 'nope'" in missing.json()["message"]


def test_every_error_status_a_route_returns_is_in_the_schema(http) -> None:
    schema = http.get("/openapi.json").json()
    for path, ops in schema["paths"].items():
        if path in ("/api/health",) or path.startswith("/mcp"):
            continue
        for method, op in ops.items():
            declared = set(op["responses"])
            assert {"400", "401", "404", "409", "415", "422", "503"} <= declared, (method, path)
