"""The Strata MCP server: one `MCPServer` with every feature's tools, served over stdio or HTTP.

Extension point: each feature adds a module `app/mcp/tools/<feature>.py` exporting
`register(server, services)` and one line to TOOL_MODULES below; docs/api.md lists every tool
(a test checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from app import __version__
from app.bootstrap import Services
from app.mcp.tools import connectors, files, forgetting, insights, kb, memory

# One line per feature. Order is the order tools are listed to clients.
TOOL_MODULES: tuple[ModuleType, ...] = (memory, files, kb, insights, forgetting, connectors)

# Names from the specification owned by the knowledge-base issue (app/mcp/tools/knowledge_base.py);
# nothing else may take them.
RESERVED_TOOL_NAMES = ("searchKnowledgeBase", "getFullDocumentContent", "listKnowledgeBaseDocuments")

INSTRUCTIONS = (
    "Strata is the user's local, private memory of their chats (Slack, Discord, Telegram, imports) "
    "and notes. Use search_memory to find what was said, get_memory to read full records with "
    "their surrounding conversation, remember to save a note the user asks you to keep, and "
    "memory_stats for an overview. Markdown pages about people, chats, channels and projects are "
    "in the memory files: search_memory_files, read_memory_file. Results are compact and bounded; "
    "follow next_offset to page."
)


def build_mcp_server(services: Services, modules: Sequence[ModuleType] = TOOL_MODULES) -> MCPServer:
    server: MCPServer = MCPServer(
        "strata",
        title="Strata memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
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


def run_stdio(services: Services) -> None:
    """Serve the tools over stdin/stdout until the client closes the pipe."""
    build_mcp_server(services).run("stdio")
