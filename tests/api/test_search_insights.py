"""Insights in unified search on every surface: REST (GET and POST), the CLI and MCP `search_memory`."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from app.api.app import create_app
from app.cli.main import cli
from app.mcp.server import build_mcp_server

TOKEN = "k" * 43
QUERY = "update the forecast sheet"


@pytest.fixture
def with_insights(services):
    report = services.insights.generate()
    assert report.created  # the demo chat holds action items and questions
    return services


@pytest.fixture
async def client(with_insights):
    transport = httpx.ASGITransport(app=create_app(with_insights, token=TOKEN))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3415", headers=headers) as c:
        yield c


def _kinds(hits: list[dict]) -> set[str]:
    return {h["kind"] for h in hits}


@pytest.mark.anyio
async def test_rest_insights_flag(client, with_insights):
    plain = (await client.get("/api/search", params={"q": QUERY})).json()
    assert "insight" not in _kinds(plain["hits"])
    got = (await client.get("/api/search", params={"q": QUERY, "insights": "true"})).json()
    posted = (await client.post("/api/search", json={"query": QUERY, "insights": True})).json()
    assert got["hits"] == posted["hits"] and "insight" in _kinds(got["hits"])
    insight = next(h for h in got["hits"] if h["kind"] == "insight")
    assert insight["id"].startswith("insight:")
    assert insight["relevance"] >= with_insights.memory.relevance_floor
    # Strict types are kept: a string is not a boolean in the JSON body.
    assert (await client.post("/api/search", json={"query": QUERY, "insights": "yes"})).status_code == 422


def test_cli_insights_flag(with_insights, cli_env):
    with_insights.close()  # the CLI opens the data dir itself
    result = CliRunner().invoke(cli, ["search", QUERY, "--insights", "--json"])
    assert result.exit_code == 0, result.output
    assert "insight" in _kinds(json.loads(result.output)["hits"])


@pytest.mark.anyio
async def test_mcp_search_memory_insights_and_get_insight(with_insights):
    async with Client(build_mcp_server(with_insights, profile="full")) as mcp:
        result = await mcp.call_tool("search_memory", {"query": QUERY, "insights": True})
        hits = json.loads(result.content[0].text)["hits"]
        insight = next(h for h in hits if h["kind"] == "insight")
        got = await mcp.call_tool("get_insight", {"id": insight["id"].removeprefix("insight:")})
        assert not got.is_error and "forecast" in got.content[0].text
