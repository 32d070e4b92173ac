"""REST and MCP for issue 13: archived text on request, bulk deletion with a preview."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp import Client
from sqlalchemy import update

from app.api.app import create_app
from app.core.storage.models import RawMessageRow
from app.mcp.server import build_mcp_server

TOKEN = "k" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def client(services):
    app = create_app(services, token=TOKEN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3415", headers=AUTH) as c:
        yield c


def _archive(services, record_id: int) -> str:
    """State as the forgetting engine leaves it: text kept, row hidden (set up directly)."""
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id == record_id).values(archived_at=1))
    return services.memory.get(record_id, reveal_archived=True).content or ""


@pytest.mark.anyio
async def test_archived_text_is_readable_on_request(client, services):
    text = _archive(services, 3)
    hidden = (await client.get("/api/messages/3")).json()
    assert hidden["content"] is None and hidden["archived_at"] == 1
    shown = await client.get("/api/messages/3", params={"include_archived": "true", "context": 1})
    assert shown.status_code == 200 and shown.json()["content"] == text
    async with Client(build_mcp_server(services)) as mcp:
        plain = json.loads((await mcp.call_tool("get_memory", {"ids": ["3"]})).content[0].text)
        assert plain["records"][0]["content"] is None and plain["records"][0]["archived"] is True
        result = await mcp.call_tool("get_memory", {"ids": ["3"], "include_archived": True})
        assert json.loads(result.content[0].text)["records"][0]["content"] == text


@pytest.mark.anyio
async def test_bulk_deletion_preview_then_delete(client, services):
    selector = {"platform": "slack", "channel": "launch", "before": "2026-11-05"}
    preview = await client.post("/api/messages/deletions/preview", json=selector)
    assert preview.status_code == 200, preview.text
    plan = preview.json()
    assert plan["count"] == 5 and plan["byChannel"] == [{"channel": "launch", "count": 5}]
    assert services.memory.stats()["messages"] == 24
    done = await client.post("/api/messages/deletions", json=selector)
    assert done.status_code == 200 and done.json()["deleted"] == 5
    assert services.memory.stats()["messages"] == 19
    again = (await client.post("/api/messages/deletions/preview", json=selector)).json()
    assert again["count"] == 0


@pytest.mark.anyio
async def test_bulk_deletion_needs_a_filter(client, services):
    empty = await client.post("/api/messages/deletions", json={})
    assert empty.status_code == 400 and "at least one" in empty.json()["message"]
    bad = await client.post("/api/messages/deletions/preview", json={"before": "someday"})
    assert bad.status_code == 400
    assert services.memory.stats()["messages"] == 24


@pytest.mark.anyio
async def test_export_and_backup_routes_write_folders_in_the_data_dir(client, services):
    root = services.layout.root
    exported = await client.post("/api/export", json={"name": "mine"})
    assert exported.status_code == 200, exported.text
    assert exported.json()["messages"] == 24 and exported.json()["path"] == str(root / "exports" / "mine")
    assert len((root / "exports" / "mine" / "messages.jsonl").read_text().splitlines()) == 24
    backed = await client.post("/api/backup")
    assert backed.status_code == 200 and backed.json()["messages"] == 24
    assert backed.json()["path"].startswith(str(root / "backups" / "strata-backup-"))
    again = await client.post("/api/export", json={"name": "mine"})
    assert again.status_code == 400 and "not an empty folder" in again.json()["message"]
    for name in ("../outside", "/etc/x", ".hidden", "a/b"):
        refused = await client.post("/api/backup", json={"name": name})
        assert refused.status_code == 422, name
