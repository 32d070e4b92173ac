"""`strata mcp` as a real subprocess driven by the SDK's stdio client, alone and next to `serve`."""

from __future__ import annotations

import json
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow


@asynccontextmanager
async def stdio_session(data_dir: Path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.cli.main", "--data-dir", str(data_dir), "mcp"],
        env={"STRATA_EMBEDDING__PROVIDER": "hashing"},
        cwd=PROJECT_ROOT,
    )
    # Start-up imports LanceDB and opens the stores: generous on a busy 2-core machine.
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=120) as s,
    ):
        await s.initialize()
        yield s


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.mark.anyio
async def test_stdio_server_lists_and_calls_the_tools(services):
    async with stdio_session(services.settings.data_dir) as session:
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == ["search", "fetch", "brief", "remember"]  # the essential profile
        # Tools outside the profile are not listed but stay callable by name (contract).
        hits = _data(await session.call_tool("search_memory", {"query": "press kit review"}))["hits"]
        assert hits and hits[0]["platform"] == "slack"
        record = _data(await session.call_tool("get_memory", {"ids": [hits[0]["id"]]}))["records"][0]
        assert record["content"] and "before" in record
        missing = await session.call_tool("search_memory", {"query": ""})
        assert missing.is_error
        # Read-after-write across the stdio transport: a remembered note is found at once.
        note = _data(await session.call_tool("remember", {"text": "Locker code for the gym is 4711"}))
        found = _data(await session.call_tool("search", {"query": "gym locker code"}))["hits"]
        assert found[0]["id"] == f"message:{note['id']}"


@pytest.mark.anyio
async def test_stdio_mcp_and_http_serve_write_the_same_data_dir_at_once(services):
    """Process safety: a stdio MCP server (another process) and the HTTP app write concurrently."""
    notes, batches, per_batch = 15, 15, 5
    token = load_or_create_token(services.layout.token_file)
    note_ids: list[int] = []
    ingested: list[int] = []

    async def via_mcp(session: ClientSession) -> None:
        for i in range(notes):
            stored = _data(await session.call_tool("remember", {"text": f"stdio note {i}: kiwi {i * 7}"}))
            note_ids.append(stored["id"])

    async def via_http(http: httpx.AsyncClient) -> None:
        for b in range(batches):
            messages = [
                {
                    "platform": "slack",
                    "message_id": f"http-{b}-{k}",
                    "channel": "load",
                    "person": "bot",
                    "timestamp": 1_794_000_000_000 + b * 100 + k,
                    "content": f"http batch {b} item {k} mango",
                }
                for k in range(per_batch)
            ]
            r = await http.post("/api/messages", json={"messages": messages})
            assert r.status_code == 200, r.text
            assert r.json()["imported"] == per_batch
            ingested.extend(r.json()["ids"])

    with BackgroundServer(create_app(services)) as server:
        async with (
            stdio_session(services.settings.data_dir) as session,
            httpx.AsyncClient(
                base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60
            ) as http,
        ):
            async with anyio.create_task_group() as tg:
                tg.start_soon(via_mcp, session)
                tg.start_soon(via_http, http)
            total = 24 + notes + batches * per_batch
            # Each process sees every write of the other.
            assert _data(await session.call_tool("memory_stats", {}))["messages"] == total
            assert (await http.get("/api/stats")).json()["messages"] == total
            mcp_hits = _data(await session.call_tool("search_memory", {"query": "mango http batch"}))
            assert mcp_hits["hits"] and all("mango" in h["snippet"] for h in mcp_hits["hits"])

    assert len(set(note_ids)) == notes and len(set(ingested)) == batches * per_batch
    stats = services.memory.stats()
    assert stats["messages"] == stats["vectors"] == 24 + notes + batches * per_batch
    assert {services.memory.get(i).platform for i in note_ids} == {"note"}
