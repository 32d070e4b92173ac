"""The knowledge-base MCP tools through the SDK's own client (in-process transport) on real services."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

mcp_server = pytest.importorskip("app.mcp.server", reason="the MCP server lands with the api branch")
from mcp import Client  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "knowledge_base"))
import kbfiles  # noqa: E402

from app.mcp.tools import kb as kb_tools  # noqa: E402

TOOLS = ("searchKnowledgeBase", "getFullDocumentContent", "listKnowledgeBaseDocuments")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
async def client(services):
    async with Client(mcp_server.build_mcp_server(services, modules=(kb_tools,), profile="full")) as c:
        yield c


@pytest.mark.anyio
async def test_tools_have_the_specification_names_and_arguments(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(TOOLS) <= set(tools)
    search = tools["searchKnowledgeBase"].input_schema
    # The specification's arguments, plus our optional `reveal` (issue 14; off unless allowed).
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "limit", "documentIds", "reveal"}
    full = tools["getFullDocumentContent"].input_schema
    assert full["required"] == ["documentId"] and "documentId" in full["properties"]
    listing = tools["listKnowledgeBaseDocuments"].input_schema
    assert set(listing["properties"]) == {"limit"}
    assert all(tools[name].annotations.read_only_hint for name in TOOLS)


@pytest.mark.anyio
async def test_search_full_content_and_listing(client, services, clock):
    deck = services.knowledge.add_bytes(
        kbfiles.pptx_bytes([("Intro", ["hello"], None), ("Caracal plan", ["hunt at dusk"], "be quiet")]),
        "deck.pptx",
    )
    clock.advance(1000)
    notes = services.knowledge.add_bytes(b"caracal sightings: three in May", "notes.txt")
    listed = _data(await client.call_tool("listKnowledgeBaseDocuments", {"limit": 10}))
    assert [d["id"] for d in listed["documents"]] == [notes.id, deck.id] and listed["total"] == 2
    assert (
        _data(await client.call_tool("listKnowledgeBaseDocuments", {"limit": 1}))["documents"][0]["id"]
        == notes.id
    )

    found = _data(await client.call_tool("searchKnowledgeBase", {"query": "caracal", "limit": 5}))
    assert {r["documentId"] for r in found["results"]} == {deck.id, notes.id}
    slide = next(r for r in found["results"] if r["documentId"] == deck.id)
    assert slide["slide"] == 2 and slide["heading"] == "Caracal plan" and slide["fileName"] == "deck.pptx"
    only = _data(
        await client.call_tool(
            "searchKnowledgeBase", {"query": "caracal", "limit": 5, "documentIds": [notes.id]}
        )
    )
    assert [r["documentId"] for r in only["results"]] == [notes.id]

    full = _data(await client.call_tool("getFullDocumentContent", {"documentId": deck.id}))
    assert "[Slide 2]" in full["content"] and "Notes: be quiet" in full["content"]
    assert full["fileName"] == "deck.pptx" and full["next_offset"] is None


@pytest.mark.anyio
async def test_long_documents_page(client, services):
    text = ("word " * 20_000).encode()  # 100,000 characters
    doc = services.knowledge.add_bytes(text, "long.txt")
    first = _data(await client.call_tool("getFullDocumentContent", {"documentId": doc.id}))
    assert (
        first["totalChars"] == 99_999 and first["next_offset"] == 40_000 and len(first["content"]) == 40_000
    )
    last = _data(await client.call_tool("getFullDocumentContent", {"documentId": doc.id, "offset": 80_000}))
    assert last["next_offset"] is None and len(last["content"]) == 19_999


@pytest.mark.anyio
async def test_errors_reach_the_client_readably(client):
    missing = await client.call_tool("getFullDocumentContent", {"documentId": "nope"})
    assert missing.is_error and "not_found" in missing.content[0].text
    unknown = await client.call_tool(
        "searchKnowledgeBase", {"query": "x", "limit": 5, "documentIds": ["nope"]}
    )
    assert unknown.is_error and "unknown knowledge-base document id" in unknown.content[0].text
