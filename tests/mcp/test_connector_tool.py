"""The `connector_status` MCP tool through the real MCP SDK client (in-process transport)."""

from __future__ import annotations

import asyncio
import json

from mcp import Client
from mcp.server.mcpserver import MCPServer

from app.mcp.tools import connectors as connector_tools
from app.services.connector_service import ConnectorService
from connectors.retry import RetryPolicy
from connectors.secrets import FileSecretStore
from tests.connectors.fake_slack import FakeSlack


def test_connector_status_tool(services, clock):
    services.connectors = ConnectorService(
        services.db,
        services.memory,
        FileSecretStore(services.layout.secrets_file),
        clock,
        user_id=services.settings.user_id,
        retry=RetryPolicy(max_attempts=1),
    )
    fake = FakeSlack()
    with fake.server:
        services.connectors.add("slack", fake.token, options={"base_url": fake.server.url + "/api/"})
        fake.post("C1", "1700000001.000100", "hello")
        services.connectors.sync("slack")
    server = MCPServer("strata-test")
    connector_tools.register(server, services)

    async def main():
        async with Client(server) as client:
            tools = await client.list_tools()
            everything = await client.call_tool("connector_status", {})
            one = await client.call_tool("connector_status", {"connector": "slack"})
            missing = await client.call_tool("connector_status", {"connector": "nope"})
            return tools, everything, one, missing

    tools, everything, one, missing = asyncio.run(main())
    tool = next(t for t in tools.tools if t.name == "connector_status")
    assert tool.annotations.read_only_hint is True
    data = json.loads(everything.content[0].text)
    assert data["count"] == 1 and data["connectors"][0]["status"] == "ok"
    assert data["connectors"][0]["messages_total"] == 1
    assert json.loads(one.content[0].text)["connectors"][0]["id"] == "slack"
    assert missing.is_error and "not_found" in missing.content[0].text
