"""The `forgetting_status` MCP tool through the real MCP SDK client (in-process transport)."""

from __future__ import annotations

import json

import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from app.mcp.tools import forgetting, memory
from tests.forgetting.conftest import seed_group


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_forgetting_status_tool(services) -> None:
    seed_group(services, day=10)
    services.forgetting.run()
    server = MCPServer("strata-test")
    forgetting.register(server, services)
    async with Client(server) as client:
        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == ["forgetting_status"]
        result = await client.call_tool("forgetting_status", {})
        assert not result.is_error
        data = result.structured_content or json.loads(result.content[0].text)
    assert data["enabled"] is True
    assert data["lastRun"]["status"] == "completed"
    assert data["lastRun"]["totals"]["summarized"] == 1
    assert data["summaries"] == 1 and data["lockHeld"] is False


@pytest.mark.anyio
async def test_get_memory_gives_the_summary_of_an_archived_record(services) -> None:
    ids = seed_group(
        services, day=10, texts=["venue booked in Lisbon", "flights for the offsite", "hotel ok"]
    )
    services.forgetting.run()
    server = MCPServer("strata-test")
    memory.register(server, services)
    async with Client(server) as client:
        result = await client.call_tool("get_memory", {"ids": [str(ids[0])], "context": 0})
        assert not result.is_error
        data = result.structured_content or json.loads(result.content[0].text)
    record = data["records"][0]
    assert record["content"] is None
    assert record["summary"]["summaryId"] == record["summary_ref_id"]
    assert record["summary"]["messageCount"] == 3 and record["summary"]["summaryText"]
