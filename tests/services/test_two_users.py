"""Two users on one data dir never see each other's data: search, insights, KB, connectors, REST, MCP, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from mcp import Client
from sqlalchemy import select
from typer.testing import CliRunner

from app.api.app import create_app
from app.bootstrap import build_services
from app.cli.main import cli
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import LockRow, RawMessageRow
from app.mcp.server import build_mcp_server
from forgetting.lock import UserLock
from tests.conftest import NOW_MS

TOKEN = "u" * 43


def _messages(user: str, word: str) -> list[RawMessage]:
    # Same platform and message ids for both users: dedupe must be per user, never across users.
    texts = [
        f"Decision: we will ship the {word} release on Friday.",
        f"@sam can you update the {word} status page by 2026-11-25?",
        f"Does anyone know who owns the {word} budget?",
    ]
    return [
        RawMessage(
            platform="slack",
            message_id=f"m{i}",
            channel="launch",
            person="anna",
            timestamp=NOW_MS - 3_600_000 + i * 60_000,
            content=text,
            user_id=user,
        )
        for i, text in enumerate(texts)
    ]


@pytest.fixture
def users(data_dir: Path, clock):
    built = {}
    for user in ("alice", "bob"):
        settings = Settings(data_dir=data_dir, user_id=user, embedding=EmbeddingSettings(provider="hashing"))
        built[user] = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield built
    for svc in built.values():
        svc.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def seeded(users, tmp_path: Path):
    for user, word in (("alice", "aurora"), ("bob", "borealis")):
        svc = users[user]
        assert svc.memory.ingest(_messages(user, word)).imported == 3
        svc.insights.generate()
        doc = tmp_path / f"{user}.md"
        # Same file for both: the KB's content-hash uniqueness must be per user.
        doc.write_text("# Handbook\n\nThe shared handbook says expenses are due monthly.\n", encoding="utf-8")
        svc.knowledge.add_file(doc)
        svc.connectors.states.add(f"{user}-slack", "slack", {}, 15, NOW_MS)
    return users


def test_search_insights_kb_and_connectors_stay_apart(seeded) -> None:
    alice, bob = seeded["alice"], seeded["bob"]
    for svc, mine, theirs in ((alice, "aurora", "borealis"), (bob, "borealis", "aurora")):
        hits = svc.memory.search("release budget status page", limit=20)
        assert hits and all(theirs not in (h.content or "") for h in hits)
        assert any(mine in (h.content or "") for h in hits)
        assert svc.memory.search(theirs) == [] or all(
            theirs not in (h.content or "") for h in svc.memory.search(theirs)
        )
        insights = svc.insights.list_insights(limit=50)
        assert insights and all(theirs not in json.dumps(i.to_dict()) for i in insights)
        assert svc.knowledge.count() == 1
        assert [s.id for s in svc.connectors.states.list()] == [f"{svc.settings.user_id}-slack"]
    alice_ids = {i.insight.id for i in alice.insights.list_insights(limit=50)}
    bob_ids = {i.insight.id for i in bob.insights.list_insights(limit=50)}
    assert alice_ids.isdisjoint(bob_ids) and len(alice_ids) == len(bob_ids)
    assert alice.connectors.states.find("bob-slack") is None
    assert alice.memory.stats()["messages"] == bob.memory.stats()["messages"] == 3


def test_forgetting_lock_rows_carry_their_user(users) -> None:
    lock = UserLock(users["alice"].db, users["alice"].clock, "alice")
    assert lock.acquire(heartbeat=False)
    try:
        with users["alice"].db.read() as session:
            assert [(r.key, r.user_id) for r in session.scalars(select(LockRow))] == [
                ("memory_forgetting:alice", "alice")
            ]
    finally:
        lock.release()


@pytest.mark.anyio
async def test_rest_and_mcp_answer_for_their_own_user_only(seeded) -> None:
    for user, theirs in (("alice", "borealis"), ("bob", "aurora")):
        svc = seeded[user]
        app = create_app(svc, token=TOKEN)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://127.0.0.1:3415",
            headers={"Authorization": f"Bearer {TOKEN}"},
        ) as http:
            body = (await http.get("/api/search", params={"q": f"{theirs} release", "limit": 20})).json()
            assert all(theirs not in (h.get("content") or "") for h in body["hits"])
            other_id = 4 if user == "alice" else 1  # the other user's first message
            assert (await http.get(f"/api/messages/{other_id}")).status_code == 404
            listed = (await http.get("/api/insights", params={"limit": 50})).text
            assert theirs not in listed
        async with Client(build_mcp_server(svc)) as mcp:
            result = await mcp.call_tool("search_memory", {"query": f"{theirs} release budget"})
            assert theirs not in json.dumps(json.loads(result.content[0].text)["hits"])
            got = await mcp.call_tool("get_memory", {"ids": [str(other_id)]})
            assert json.loads(got.content[0].text)["missing"] == [str(other_id)]


def test_cli_import_stores_rows_for_the_configured_user(
    tmp_path: Path, cli_env, monkeypatch, data_dir
) -> None:
    file = tmp_path / "in.jsonl"
    line = {"platform": "slack", "message_id": "x1", "timestamp": "2026-11-01T10:00:00Z", "content": "hello"}
    file.write_text(json.dumps(line) + "\n", encoding="utf-8")
    monkeypatch.setenv("STRATA_USER_ID", "alice")
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "jsonl", str(file), "--json"]).exit_code == 0
    found = json.loads(runner.invoke(cli, ["search", "hello", "--json"]).stdout)["hits"]
    assert [h["content"] for h in found] == ["hello"]
    svc = build_services(
        Settings(data_dir=data_dir, user_id="alice", embedding=EmbeddingSettings(provider="hashing"))
    )
    try:
        with svc.db.read() as session:
            assert [r.user_id for r in session.scalars(select(RawMessageRow))] == ["alice"]
    finally:
        svc.close()


@pytest.mark.anyio
async def test_forgetting_routes_do_not_reach_another_user(seeded) -> None:
    app = create_app(seeded["alice"], token=TOKEN)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1:3415",
        headers={"Authorization": f"Bearer {TOKEN}"},
    ) as http:
        assert (await http.get("/api/forgetting/status", params={"user_id": "bob"})).status_code == 404
        assert (await http.post("/api/forgetting/preview", json={"userId": "bob"})).status_code == 404
        assert (await http.post("/api/forgetting/run", json={"userId": "bob"})).status_code == 404
        own = await http.get("/api/forgetting/status", params={"user_id": "alice"})
        assert own.status_code == 200 and own.json()["userId"] == "alice"
    async with Client(build_mcp_server(seeded["alice"])) as mcp:
        result = await mcp.call_tool("forgetting_status", {"user_id": "bob"})
        assert result.is_error and "not_found" in result.content[0].text
