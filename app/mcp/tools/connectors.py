"""MCP tool `connector_status`: which live connectors feed the memory, and how fresh they are."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from app.bootstrap import Services
from app.core.errors import StrataError

STATUS_DESCRIPTION = """Status of the user's live connectors (Slack, Discord, Telegram) that keep
their memory up to date: for each, when it last synced, whether that worked (`status` ok/error,
`last_error_code` such as connector_auth_failed or connector_rate_limited), and how many messages
it brought in. Use it when recent messages seem missing from search results, to tell the user
whether a source is stale or needs a new token. Pass `connector` to see one by name."""


def register(server: MCPServer, services: Services) -> None:
    connectors = services.connectors
    assert connectors is not None, "bootstrap always builds the connector service"

    def connector_status(
        connector: Annotated[str | None, Field(description="one connector by name, e.g. 'slack'")] = None,
    ) -> dict[str, Any]:
        try:
            states = [connectors.status(connector)] if connector else connectors.list_all()
        except StrataError as exc:
            # Shown to the model as a tool error it can read and act on.
            raise ToolError(f"{exc.code}: {exc.message}") from exc
        keys = (
            "id",
            "kind",
            "status",
            "last_sync_at",
            "last_success_at",
            "last_error_code",
            "messages_total",
        )
        items = [{k: s.to_dict()[k] for k in keys} for s in states]
        return {"connectors": items, "count": len(items)}

    server.add_tool(
        connector_status,
        description=STATUS_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
