"""A real uvicorn on a free loopback port: REST like curl, MCP over streamable HTTP (SDK client)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer


@pytest.fixture
def live(services) -> Iterator[tuple[BackgroundServer, str]]:
    token = load_or_create_token(services.layout.token_file)
    with BackgroundServer(create_app(services)) as server:
        yield server, token


def test_rest_over_real_http(live):
    server, token = live
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert http.get("/api/health").json()["status"] == "ok"
        hits = http.get("/api/search", params={"q": "press kit"}, headers=auth).json()["hits"]
        assert any("press kit" in h["content"] for h in hits)
        assert http.get("/api/stats").status_code == 401
        assert http.get("/api/stats", headers={**auth, "Host": "rebind.attacker.example"}).status_code == 421
        assert (
            http.get("/api/stats", headers={**auth, "Origin": "http://attacker.example"}).status_code == 403
        )
        # /mcp is guarded by the same token, Host and Origin checks.
        assert http.post("/mcp", json={}).status_code == 401
        assert http.post("/mcp", json={}, headers={**auth, "Origin": "https://x.example"}).status_code == 403


def test_sdk_dns_rebinding_protection_is_on(services):
    app = create_app(services, token="z" * 43)
    settings = app.state.mcp_server.session_manager.security_settings
    assert settings.enable_dns_rebinding_protection
    assert "127.0.0.1:*" in settings.allowed_hosts and "http://localhost:*" in settings.allowed_origins


@pytest.mark.anyio
async def test_mcp_over_streamable_http_with_the_sdk_client(live, services):
    server, token = live
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http,
        streamable_http_client(f"{server.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert names == {"search", "fetch", "brief", "remember"}  # the default essential profile
        result = await session.call_tool("search_memory", {"query": "press kit", "limit": 3})
        assert not result.is_error
        hits = json.loads(result.content[0].text)["hits"]
        assert hits and any("press kit" in h["snippet"] for h in hits)
        stored = await session.call_tool("remember", {"text": "The HTTP transport works"})
        note_id = json.loads(stored.content[0].text)["id"]
        # Read-after-write: the note is searchable at once.
        found = await session.call_tool("search", {"query": "HTTP transport works"})
        assert json.loads(found.content[0].text)["hits"][0]["id"] == f"message:{note_id}"
    assert services.memory.get(note_id).platform == "note"


@pytest.mark.anyio
async def test_mcp_http_refuses_a_wrong_token(live):
    server, _ = live
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer wrong"}) as http:
        response = await http.post(f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401 and response.json()["error"] == "unauthorized"
