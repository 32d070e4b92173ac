"""docs/api.md lists every REST route and every MCP tool (so new features must document theirs)."""

from __future__ import annotations

import pytest

from app.api.app import create_app
from app.mcp.server import RESERVED_TOOL_NAMES, build_mcp_server
from tests.conftest import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "api.md"


def test_every_rest_route_is_documented(services):
    text = DOC.read_text(encoding="utf-8")
    app = create_app(services, token="d" * 43)
    # The OpenAPI schema is the complete list (FastAPI includes routers lazily).
    routes = {
        f"`{method.upper()} {path}`" for path, item in app.openapi()["paths"].items() for method in item
    }
    assert len(routes) >= 8
    missing = sorted(r for r in routes if r not in text)
    assert not missing, f"document these in docs/api.md: {missing}"


@pytest.mark.anyio
async def test_every_mcp_tool_is_documented(services):
    text = DOC.read_text(encoding="utf-8")
    tools = [t.name for t in await build_mcp_server(services, profile="full").list_tools()]
    assert "search_memory" in tools
    missing = [name for name in (*tools, *RESERVED_TOOL_NAMES) if f"`{name}`" not in text]
    assert not missing, f"document these MCP tools in docs/api.md: {missing}"
