"""Memory-file MCP tools through the SDK's client: find a fact, read the page, write a note, no escapes."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from app.mcp.server import build_mcp_server


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
async def client(services):
    services.files.refresh()
    async with Client(build_mcp_server(services, profile="full")) as c:
        yield c


@pytest.mark.anyio
async def test_descriptions_say_when_to_use_each_tool(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in ("list_memory_files", "read_memory_file", "search_memory_files", "write_memory_note"):
        assert len(tools[name].description) > 150
    assert "search_memory" in tools["search_memory_files"].description
    assert tools["write_memory_note"].annotations.read_only_hint is False


@pytest.mark.anyio
async def test_an_agent_finds_a_fact_and_reads_the_file(client):
    found = _data(await client.call_tool("search_memory_files", {"query": "forecast sheet"}))
    paths = [f["path"] for f in found["files"]]
    assert "people/anna.md" in paths
    page = _data(await client.call_tool("read_memory_file", {"path": "people/anna.md"}))
    assert "forecast sheet" in page["text"] and page["next_offset"] is None
    small = _data(await client.call_tool("read_memory_file", {"path": "people/anna.md", "max_tokens": 200}))
    assert small["next_offset"] and len(small["text"]) <= 800
    rest = _data(
        await client.call_tool("read_memory_file", {"path": "people/anna.md", "offset": small["next_offset"]})
    )
    assert small["text"] + rest["text"] == page["text"]
    listed = _data(await client.call_tool("list_memory_files", {"max_tokens": 200}))
    assert listed["total"] > len(listed["files"]) >= 1 and listed["next_offset"]


@pytest.mark.anyio
async def test_notes_written_by_agents_and_remember(client, services):
    first = _data(
        await client.call_tool("write_memory_note", {"title": "Trip ideas", "text": "Lisbon in May"})
    )
    again = _data(await client.call_tool("write_memory_note", {"title": "Trip ideas", "text": "Porto too"}))
    assert first["created"] and again["appended"] and first["path"] == "notes/trip-ideas.md"
    text = services.files.read("notes/trip-ideas.md").text
    assert "Lisbon in May" in text and "Porto too" in text
    _data(await client.call_tool("remember", {"text": "Anna's birthday is 3 March"}))
    assert "Anna's birthday is 3 March" in services.files.read("notes/remembered.md").text


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path", ["../api-token", "/etc/passwd", "people/../../strata.sqlite3", "notes/.x.md"]
)
async def test_path_escapes_are_tool_errors(client, path):
    result = await client.call_tool("read_memory_file", {"path": path})
    assert result.is_error and "invalid_input" in result.content[0].text
    bad_title = await client.call_tool("write_memory_note", {"title": "../../escape", "text": "x"})
    assert not bad_title.is_error  # a title is only a name: it becomes notes/escape.md
    assert _data(bad_title)["path"] == "notes/escape.md"


@pytest.mark.anyio
async def test_the_essential_search_finds_a_page_and_fetch_reads_it(services):
    services.files.refresh()
    services.files.write("strategy/2027.md", "# 2027\nOpen a Lisbon office in spring.\n")
    async with Client(build_mcp_server(services, profile="essential")) as essential:
        hits = _data(await essential.call_tool("search", {"query": "Lisbon office"}))["hits"]
        ids = [h["id"] for h in hits if h["kind"] == "memory_file"]
        assert ids == ["file:strategy/2027.md"]
        record = _data(await essential.call_tool("fetch", {"ids": ids}))["records"][0]
        assert record["path"] == "strategy/2027.md" and "Lisbon office" in record["content"]
        # Unlisted in this profile, yet callable by name.
        page = _data(await essential.call_tool("read_memory_file", {"path": "strategy/2027.md"}))
        assert page["title"] == "2027"
