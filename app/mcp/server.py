"""The Strata MCP server: one `MCPServer` with every feature's tools, served over stdio or HTTP.

Extension point: each feature adds a module `app/mcp/tools/<feature>.py` exporting
`register(server, services)` and one line to TOOL_MODULES below; docs/api.md lists every tool
(a test checks it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from types import ModuleType
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import Tool
from starlette.applications import Starlette

from app import __version__
from app.bootstrap import Services
from app.core.errors import InvalidInput
from app.mcp.tools import agent, connectors, files, forgetting, insights, kb, memory

# One line per feature. Order is the order tools are listed to clients.
TOOL_MODULES: tuple[ModuleType, ...] = (agent, memory, files, kb, insights, forgetting, connectors)

# The tools an agent sees by default. Every tool definition costs the client's context window on
# every turn, so the default lists one tool per job: `search` (every kind, one relevance floor),
# `fetch` (any id search or brief returns, summary first), `brief` (the wake-up picture) and
# `remember` (the write path). The older per-kind tools (search_memory, get_memory, the
# specification's knowledge-base trio, insights, forgetting, connectors) overlap with these; they
# are listed by the "full" profile and stay callable by name in both, so existing agents and
# scripts keep working.
ESSENTIAL_TOOLS = ("search", "fetch", "brief", "remember")
PROFILES = ("essential", "full")

# Names from the specification owned by the knowledge-base issue (app/mcp/tools/knowledge_base.py);
# nothing else may take them.
RESERVED_TOOL_NAMES = ("searchKnowledgeBase", "getFullDocumentContent", "listKnowledgeBaseDocuments")

INSTRUCTIONS = (
    "Strata is the user's local, private memory of their chats (Slack, Discord, Telegram, e-mail, "
    "imports), documents and notes. Call brief at the start of a conversation for the user's open "
    "loops, decisions and deadlines; use search to find anything (an empty result means no close "
    "match), fetch to read what search or brief returned, and remember to save a note the user asks "
    "you to keep. search also finds the user's markdown memory files (pages about people, chats, "
    "channels and projects; ids file:<path>). Results are compact and bounded; follow next_offset "
    "to page."
)


class ProfiledMCPServer(MCPServer):
    """An MCPServer that lists only its profile's tools; every registered tool stays callable."""

    def __init__(self, *args: Any, listed: Collection[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed = None if listed is None else frozenset(listed)

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        return tools if self.listed is None else [t for t in tools if t.name in self.listed]


def build_mcp_server(
    services: Services, modules: Sequence[ModuleType] = TOOL_MODULES, *, profile: str | None = None
) -> MCPServer:
    """`profile` "essential" or "full"; None takes the `api.mcp_profile` setting."""
    profile = profile or services.settings.api.mcp_profile
    if profile not in PROFILES:
        raise InvalidInput(f"unknown MCP profile {profile!r}", hint="use essential or full")
    server = ProfiledMCPServer(
        "strata",
        title="Strata memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        listed=ESSENTIAL_TOOLS if profile == "essential" else None,
    )
    for module in modules:
        module.register(server, services)
    return server


def http_app(server: MCPServer, *, allowed_hosts: list[str] | None, allowed_origins: list[str]) -> Starlette:
    """The streamable-HTTP app serving `server` at `/mcp`, with the SDK's DNS-rebinding checks on.

    `allowed_hosts=None` only for an explicit `--allow-remote` wildcard bind, where any Host name
    may be legitimate (the token and our own Origin check still apply). The caller must run
    `server.session_manager.run()` for the app's lifetime (the FastAPI lifespan does) and put
    the bearer-token check in front of it.
    """
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=allowed_hosts is not None,
        allowed_hosts=allowed_hosts or [],
        allowed_origins=allowed_origins,
    )
    return server.streamable_http_app(streamable_http_path="/mcp", transport_security=security)


def run_stdio(services: Services, profile: str | None = None) -> None:
    """Serve the tools over stdin/stdout until the client closes the pipe."""
    build_mcp_server(services, profile=profile).run("stdio")
