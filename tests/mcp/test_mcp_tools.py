"""MCP memory tools through the SDK's own client (in-process transport) on real services."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from app.mcp.server import RESERVED_TOOL_NAMES, build_mcp_server


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
async def client(services):
    async with Client(build_mcp_server(services, profile="full")) as c:
        yield c


@pytest.mark.anyio
async def test_tools_are_listed_with_llm_descriptions_and_schemas(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= {"search_memory", "get_memory", "remember", "memory_stats"}
    assert set(RESERVED_TOOL_NAMES) <= set(tools)  # registered by app/mcp/tools/kb.py
    search = tools["search_memory"]
    assert "next_offset" in search.description and "get_memory" in search.description
    assert search.input_schema["required"] == ["query"]
    assert search.annotations.read_only_hint is True
    assert tools["remember"].annotations.read_only_hint is False


@pytest.mark.anyio
async def test_search_memory_is_compact_and_pages(client, services):
    first = _data(await client.call_tool("search_memory", {"query": "launch", "limit": 3}))
    expected = [h.id for h in services.memory.search("launch", None, 6)]
    assert [h["id"] for h in first["hits"]] == expected[:3]
    assert first["next_offset"] == 3 and "offset=3" in first["note"]
    assert set(first["hits"][0]) >= {"id", "time", "platform", "channel", "person", "snippet", "score"}
    second = _data(await client.call_tool("search_memory", {"query": "launch", "limit": 3, "offset": 3}))
    assert [h["id"] for h in second["hits"]] == expected[3:6]


@pytest.mark.anyio
async def test_search_memory_respects_the_token_budget(client):
    page = _data(await client.call_tool("search_memory", {"query": "launch", "limit": 20, "max_tokens": 200}))
    assert 1 <= len(page["hits"]) < 20
    assert page["next_offset"] == len(page["hits"]) and "max_tokens" in page["note"]
    assert len(json.dumps(page["hits"])) // 4 <= 200 + 150  # one hit may overshoot; never the whole list


@pytest.mark.anyio
async def test_search_memory_filters(client):
    page = _data(
        await client.call_tool(
            "search_memory",
            # Nothing about a launch is said on telegram: loose shows the nearest there anyway.
            {"query": "launch", "platform": ["telegram"], "since": "2026-11-01", "loose": True},
        )
    )
    assert page["hits"] and {h["platform"] for h in page["hits"]} == {"telegram"}
    bad = await client.call_tool("search_memory", {"query": "launch", "since": "someday"})
    assert bad.is_error and "invalid_input" in bad.content[0].text


@pytest.mark.anyio
async def test_get_memory_returns_full_records_with_neighbours(client):
    body = _data(await client.call_tool("get_memory", {"ids": ["3", "999999", "summary:x"], "context": 1}))
    [record] = body["records"]
    assert record["id"] == 3 and record["content"].startswith("Still in review")
    assert [n["id"] for n in record["before"]] == [2] and [n["id"] for n in record["after"]] == [4]
    assert body["missing"] == ["999999", "summary:x"]


@pytest.mark.anyio
async def test_remember_stores_a_note_once_and_it_is_searchable(client, services):
    stored = _data(
        await client.call_tool("remember", {"text": "Kim prefers pistachio gelato", "tags": ["food"]})
    )
    again = _data(await client.call_tool("remember", {"text": "Kim prefers pistachio gelato"}))
    assert stored["id"] == again["id"]
    record = services.memory.get(stored["id"])
    assert record.platform == "note" and record.channel == "notes"
    hits = _data(await client.call_tool("search_memory", {"query": "pistachio gelato"}))["hits"]
    assert hits[0]["id"] == str(stored["id"])
    empty = await client.call_tool("remember", {"text": ""})
    assert empty.is_error


@pytest.mark.anyio
async def test_memory_stats(client):
    stats = _data(await client.call_tool("memory_stats", {}))
    assert stats["messages"] == 24 and "by_platform" in stats


@pytest.mark.anyio
async def test_search_memory_says_no_close_match_and_what_it_understood(client):
    page = _data(await client.call_tool("search_memory", {"query": "xylophone quantum zebra"}))
    assert page["hits"] == [] and page["no_close_match"] is True and "loose" in page["message"]
    near = _data(await client.call_tool("search_memory", {"query": "xylophone quantum zebra", "loose": True}))
    assert near["hits"] and "no_close_match" not in near
    named = _data(await client.call_tool("search_memory", {"query": "what did mum say about dinner"}))
    assert named["understood"]["people"] == ["mum"]
    assert named["hits"][0]["person"] == "mum" and 0 < named["hits"][0]["relevance"] <= 1
