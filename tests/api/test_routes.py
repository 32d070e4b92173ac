"""REST routes in-process (httpx ASGI transport) on real services: ingest, search, get, pin, delete, stats."""

from __future__ import annotations

import json

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.api.app import create_app
from app.bootstrap import build_services
from app.cli.main import cli
from app.core.jsonl import parse_jsonl
from app.core.storage.models import AuditRow

TOKEN = "k" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def client(services):
    app = create_app(services, token=TOKEN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3415", headers=AUTH) as c:
        yield c


@pytest.mark.anyio
async def test_health_is_open(client):
    r = await client.get("/api/health", headers={"Authorization": ""})
    assert r.status_code == 200 and r.json()["status"] == "ok"


@pytest.mark.anyio
async def test_search_get_and_post_agree(client, services):
    r = await client.get("/api/search", params={"q": "launch date", "limit": 5, "platform": "slack"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["query"] == "launch date" and 0 < len(body["hits"]) <= 5
    assert {h["platform"] for h in body["hits"]} == {"slack"}
    query = {"query": "launch date", "limit": 5, "platform": ["slack"]}
    posted = await client.post("/api/search", json=query)
    assert posted.json() == body
    expected = [h.to_dict() for h in services.memory.search("launch date", None, 5)]
    r = await client.get("/api/search", params={"q": "launch date", "limit": 5})
    assert r.json()["hits"] == expected


@pytest.mark.anyio
async def test_rest_and_cli_return_the_same_hits(services, settings, cli_env):
    # Both sides on the wall clock (recency weighting depends on "now"), as in real use.
    live = build_services(settings)
    try:
        transport = httpx.ASGITransport(app=create_app(live, token=TOKEN))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=AUTH) as c:
            params = {"q": "who writes the blog post", "limit": 5, "since": "2026-11-01"}
            rest = (await c.get("/api/search", params=params)).json()["hits"]
    finally:
        live.close()
    args = ["search", "who writes the blog post", "-n", "5", "--since", "2026-11-01", "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert rest and json.loads(result.stdout)["hits"] == rest


@pytest.mark.anyio
async def test_search_validation_errors_are_json(client):
    r = await client.get("/api/search", params={"q": "x", "limit": 0})
    assert r.status_code == 422 and r.json()["error"] == "validation_error"
    r = await client.get("/api/search", params={"q": "x", "since": "not a date"})
    assert (
        r.status_code == 400 and r.json()["error"] == "invalid_input" and "timestamp" in r.json()["message"]
    )


@pytest.mark.anyio
async def test_ingest_reports_imported_duplicates_and_per_item_errors(client):
    batch = {
        "messages": [
            {
                "platform": "slack",
                "message_id": "api-1",
                "channel": "ops",
                "person": "kim",
                "timestamp": "2026-11-20T08:00:00Z",
                "content": "The zebra deploy is green",
            },
            {"platform": "slack", "message_id": "api-2", "timestamp": 1794000000000},
            {"platform": "slack", "message_id": "api-3", "timestamp": "yesterday-ish", "content": "x"},
        ]
    }
    r = await client.post("/api/messages", json=batch)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["imported"] == 1 and body["duplicates"] == 0 and len(body["ids"]) == 1
    assert [(e["line"], e["message_id"]) for e in body["errors"]] == [(2, "api-2"), (3, "api-3")]
    assert "content" in body["errors"][0]["reason"] and "timestamp" in body["errors"][1]["reason"]

    again = (await client.post("/api/messages", json={"messages": batch["messages"][:1]})).json()
    assert again["imported"] == 0 and again["duplicates"] == 1

    hits = (await client.get("/api/search", params={"q": "zebra deploy"})).json()["hits"]
    assert hits[0]["message_id"] == "api-1"


@pytest.mark.anyio
async def test_get_with_context_pin_and_audited_delete(client, services):
    r = await client.get("/api/messages/3", params={"context": 1})
    assert r.status_code == 200
    record = r.json()
    assert record["id"] == 3 and record["time"].endswith("Z")
    assert [n["id"] for n in record["neighbours"]] == [2, 4]
    assert (await client.get("/api/messages/3")).json()["neighbours"] is None

    assert (await client.post("/api/messages/3/pin")).json()["is_pinned"] is True
    assert (await client.post("/api/messages/3/pin", json={"pinned": False})).json()["is_pinned"] is False

    assert (await client.delete("/api/messages/3")).json() == {"deleted": 3}
    gone = await client.get("/api/messages/3")
    assert gone.status_code == 404 and gone.json()["error"] == "not_found"
    assert (await client.delete("/api/messages/3")).status_code == 404
    with services.db.read() as session:
        actions = [(a.action, a.actor) for a in session.scalars(select(AuditRow))]
    assert ("delete", "api") in actions and ("pin", "api") in actions


@pytest.mark.anyio
async def test_stats(client):
    body = (await client.get("/api/stats")).json()
    assert body["messages"] == 24 and body["by_platform"]["slack"] == 15
    assert body["embedding_backlog"] == 0 and body["embedding_eta_seconds"] == 0.0


@pytest.mark.anyio
async def test_an_import_is_searchable_while_its_backlog_shows_in_stats_and_index(client, services, tmp_path):
    # The worker of this process is held back, as if the model were busy with a large import.
    services.processor.backlog.autostart = False
    lines = [
        {"platform": "slack", "message_id": f"b{i}", "channel": "ops", "person": "kim",
         "timestamp": 1_700_000_000_000 + i, "content": f"pelican crossing report {i}"}
        for i in range(30)
    ]  # fmt: skip
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    with path.open("rb") as handle:  # as `strata import jsonl` and every import does
        services.memory.ingest(parse_jsonl(handle, default_user="local"), defer_embedding=True)
    stats = (await client.get("/api/stats")).json()
    assert stats["embedding_backlog"] == 30 and stats["embedding_eta_seconds"] is None
    backlog = (await client.get("/api/index")).json()["backlog"]
    assert backlog["pending"] == 30 and backlog["running"] is False and backlog["drainer_pid"] is None
    hits = (await client.get("/api/search", params={"q": "pelican crossing report 7"})).json()["hits"]
    assert hits and hits[0]["content"] == "pelican crossing report 7"
    services.processor.backlog.wait(timeout_s=30)
    backlog = (await client.get("/api/index")).json()["backlog"]
    assert backlog["pending"] == 0 and backlog["embedded"] == 30 and backlog["eta_seconds"] == 0.0


@pytest.mark.anyio
async def test_index_status_per_kind_and_reembed(client):
    body = (await client.get("/api/index")).json()
    kinds = {k["kind"]: k for k in body["kinds"]}
    assert set(kinds) == {"message", "summary", "insight", "chunk", "message_key"}
    assert kinds["message"]["rows"] == kinds["message"]["vectors"] == 24
    # A small archive has no approximate index: exact search, and the fields say so.
    ann = kinds["message"]["vector_index"]
    assert ann["approximate"] is False and ann["index_type"] is None
    assert (
        ann["rows"] == ann["unindexed_rows"] == 24 and ann["indexed_rows"] == 0 and ann["builds_at_rows"] > 24
    )
    assert all(k["vector_index"]["approximate"] is False for k in body["kinds"])
    assert body["reembed"]["switch_pending"] is False and body["reembed"]["running"] is False


@pytest.mark.anyio
async def test_auth_host_origin_and_size(client, services):
    assert (await client.get("/api/stats", headers={"Authorization": ""})).status_code == 401
    assert (await client.get("/api/stats", headers={"Authorization": "Bearer nope"})).status_code == 401
    r = await client.get("/api/stats", headers={"Host": "attacker.example"})
    assert r.status_code == 421
    r = await client.get("/api/stats", headers={"Origin": "http://attacker.example"})
    assert r.status_code == 403
    r = await client.get("/api/stats", headers={"Origin": "http://localhost:5173"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers  # no CORS, wildcard or otherwise
    # /mcp sits behind the same guard.
    assert (await client.post("/mcp", json={}, headers={"Authorization": ""})).status_code == 401

    limit = services.settings.api.max_body_bytes
    big = {"messages": [{"content": "x" * (limit + 1)}]}
    r = await client.post("/api/messages", json=big)
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"


@pytest.mark.anyio
async def test_openapi_declares_bearer_auth(client):
    schema = (await client.get("/api/openapi.json", headers={"Authorization": ""})).json()
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert "security" not in schema["paths"]["/api/health"]["get"]
    assert schema["paths"]["/api/stats"]["get"]["security"]


@pytest.mark.anyio
async def test_search_floor_loose_and_understood(client):
    strict = (await client.get("/api/search", params={"q": "xylophone quantum zebra"})).json()
    assert strict["hits"] == [] and strict["no_close_match"] is True and "loose" in strict["message"]
    loose = (await client.get("/api/search", params={"q": "xylophone quantum zebra", "loose": "true"})).json()
    assert loose["hits"] and loose["no_close_match"] is False
    named = (await client.post("/api/search", json={"query": "what did mum say about dinner"})).json()
    assert named["understood"]["people"] == ["mum"] and named["hits"][0]["relevance"] > 0.3
    # A date phrase that would empty the result is reported as not applied, not silently dropped.
    dated = (await client.get("/api/search", params={"q": "birthday dinner in March 2001"})).json()
    assert dated["hits"] and dated["understood"]["date"]["applied"] is False
    assert "any time" in dated["understood"]["date"]["note"]
