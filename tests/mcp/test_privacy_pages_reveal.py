"""Through the real MCP client (and REST over real HTTP): secrets straddling a page or chunk edge
never leak in halves, and `reveal` on the knowledge-base and insight tools follows allow_reveal."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from mcp import Client
from sqlalchemy import select

from app.api.app import create_app
from app.api.server import BackgroundServer
from app.bootstrap import Services
from app.mcp.server import build_mcp_server
from app.mcp.tools import agent as agent_tools
from app.mcp.tools import files as files_tools
from app.mcp.tools import insights as insight_tools
from app.mcp.tools import kb as kb_tools
from app.mcp.tools import memory as memory_tools
from app.mcp.tools.kb import FULL_TEXT_PAGE_CHARS
from knowledge_base.models import RagChunkRow
from tests.conftest import make_message

KEY = "AKIAIOSFODNN7EXAMPLE"
PEM_LINE = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Adq"
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + f"{PEM_LINE}\n" * 60 + "-----END RSA PRIVATE KEY-----"
TOKEN = "t" * 43


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def _document(services: Services) -> tuple[str, str]:
    """A text document whose AWS key straddles the first page edge and whose private key spans chunks."""
    filler = "".join(f"Line {i} of the runbook, nothing secret here.\n" for i in range(2000))
    head = filler[: FULL_TEXT_PAGE_CHARS - 9] + " "
    text = head + KEY + " is the deploy key.\n" + filler[:3000] + PEM + "\nThat was the old key.\n"
    doc = services.knowledge.add_bytes(text.encode(), "runbook.txt")
    return doc.id, services.knowledge.get(doc.id).content


def _leaks(payload: object) -> list[str]:
    dumped = json.dumps(payload)
    fragments = {KEY[i : i + 8] for i in range(len(KEY) - 7)} | {PEM_LINE[:16]}
    return [f for f in fragments if f in dumped]


@pytest.mark.anyio
async def test_pages_and_chunks_never_return_a_secret_in_halves(services: Services) -> None:
    doc_id, stored = _document(services)
    start = stored.index(KEY)
    assert start < FULL_TEXT_PAGE_CHARS < start + len(KEY)  # the key straddles the page edge
    with services.db.read() as session:
        rows = session.execute(
            select(RagChunkRow.id, RagChunkRow.content).where(RagChunkRow.document_id == doc_id)
        ).all()
    # The chunks holding the key's lines: the later ones hold its middle with no BEGIN line.
    chunk_ids = [cid for cid, content in rows if PEM_LINE in content or KEY[:8] in content]
    async with Client(build_mcp_server(services, modules=(kb_tools, agent_tools))) as client:
        pages = [_data(await client.call_tool("getFullDocumentContent", {"documentId": doc_id}))]
        while pages[-1]["next_offset"] is not None:
            args = {"documentId": doc_id, "offset": pages[-1]["next_offset"]}
            pages.append(_data(await client.call_tool("getFullDocumentContent", args)))
        # A client-chosen offset inside the key, and `fetch` paging through the document.
        inside = _data(
            await client.call_tool("getFullDocumentContent", {"documentId": doc_id, "offset": start + 5})
        )
        fetched = _data(
            await client.call_tool(
                "fetch", {"ids": [f"document:{doc_id}"], "detail": "full", "offset": start - 10}
            )
        )
        # Every chunk, read back by id: the private key's middle lines sit in chunks with no BEGIN line.
        chunks = _data(await client.call_tool("fetch", {"ids": [f"chunk:{c}" for c in chunk_ids]}))
        found = _data(
            await client.call_tool("searchKnowledgeBase", {"query": "old key private", "limit": 20})
        )
    assert len(pages) >= 2 and pages[1]["content"].startswith("[SECRET:aws-key] is the deploy key")
    assert pages[0]["next_offset"] == pages[1]["offset"] == start  # the first page stops before the key
    assert inside["content"].startswith("[SECRET:aws-key]")
    assert _leaks([pages, inside, fetched, chunks, found]) == []
    assert len(chunk_ids) >= 3 and all("[SECRET:" in c["content"] for c in chunks["records"])
    # …including chunks that hold only the key's middle lines, which no pattern sees on their own.
    assert any(PEM_LINE in content and "-----BEGIN" not in content for _, content in rows)
    assert stored.count(KEY) == 1 and PEM in stored  # the stored text stays verbatim


@pytest.mark.anyio
async def test_reveal_on_knowledge_base_and_insight_tools(services: Services) -> None:
    doc_id, _ = _document(services)
    services.memory.ingest(
        [
            make_message(
                1,
                person="sam",
                content="@alex can you rotate the deploy password Winter2026!x before Friday?",
            ),
            make_message(2, person="alex", content="sure, will do by Friday"),
        ]
    )
    services.insights.generate()
    insight_id = next(
        d["id"]
        for d in (r.to_dict() for r in services.insights.list_insights(limit=10))
        if "Winter" in d["title"]
    )
    calls = [
        ("getFullDocumentContent", {"documentId": doc_id}),
        ("searchKnowledgeBase", {"query": "deploy key"}),
        ("list_insights", {}),
        ("get_insight", {"id": insight_id}),
        ("open_loops", {"me": ["alex"]}),
    ]
    async with Client(build_mcp_server(services, modules=(kb_tools, insight_tools))) as client:
        for name, args in calls:
            masked = await client.call_tool(name, args)
            assert "Winter2026!x" not in masked.content[0].text and KEY not in masked.content[0].text, name
            refused = await client.call_tool(name, {**args, "reveal": True})
            assert refused.is_error and "allow_reveal" in refused.content[0].text, name
        services.privacy.settings.privacy.allow_reveal = True
        revealed = {
            name: (await client.call_tool(name, {**args, "reveal": True})).content[0].text
            for name, args in calls
        }
    # Revealed pages are plain slices (the key straddles this one's end).
    assert revealed["getFullDocumentContent"].endswith(' AKIAIOSF",\n  "next_offset": 40000\n}')
    assert KEY in revealed["searchKnowledgeBase"]
    for name in ("list_insights", "get_insight", "open_loops"):
        assert "Winter2026!x" in revealed[name], name


def _http(services: Services) -> Iterator[httpx.Client]:
    with (
        BackgroundServer(create_app(services, token=TOKEN)) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as c,
    ):
        yield c


def test_reveal_on_knowledge_base_and_insight_routes(services: Services) -> None:
    doc_id, _ = _document(services)
    services.memory.ingest(
        [
            make_message(
                1,
                person="sam",
                content="@alex can you rotate the deploy password Winter2026!x before Friday?",
            )
        ]
    )
    services.insights.generate()
    insight_id = next(
        d["id"]
        for d in (r.to_dict() for r in services.insights.list_insights(limit=10))
        if "Winter" in d["title"]
    )
    for client in _http(services):
        gets = [
            (f"/api/kb/documents/{doc_id}", {}),
            ("/api/insights", {}),
            (f"/api/insights/{insight_id}", {}),
            ("/api/insights/brief", {"me": "alex"}),
        ]
        for path, params in gets:
            masked = client.get(path, params=params)
            assert masked.status_code == 200 and KEY not in masked.text and "Winter2026!x" not in masked.text
            refused = client.get(path, params={**params, "reveal": "true"})
            assert refused.status_code == 400 and "allow_reveal" in refused.json()["hint"], path
        body = {"query": "deploy key", "limit": 20}
        assert KEY not in client.post("/api/kb/search", json=body).text
        assert client.post("/api/kb/search", json={**body, "reveal": True}).status_code == 400
        services.privacy.settings.privacy.allow_reveal = True
        assert KEY in client.get(f"/api/kb/documents/{doc_id}", params={"reveal": "true"}).text
        assert KEY in client.post("/api/kb/search", json={**body, "reveal": True}).text
        for path, params in gets[1:]:
            assert "Winter2026!x" in client.get(path, params={**params, "reveal": "true"}).text, path


@pytest.mark.anyio
async def test_search_snippets_are_clipped_after_masking(services: Services) -> None:
    # A hard cut at 400 characters would leave "AKIAIOSFOD", which no pattern recognizes.
    content = "dashboard url fragment " + "-" * (400 - 23 - 10) + KEY + " rotate it"
    services.memory.ingest([make_message(1, content=content)])
    async with Client(build_mcp_server(services, modules=(agent_tools, memory_tools))) as client:
        unified = _data(await client.call_tool("search", {"query": "dashboard url fragment rotate"}))
        memory = _data(await client.call_tool("search_memory", {"query": "dashboard url fragment rotate"}))
    snippets = [h["snippet"] for h in unified["hits"] + memory["hits"]]
    assert snippets and all(KEY[:6] not in s for s in snippets), snippets
    assert all(h.get("masked") is True for h in unified["hits"] + memory["hits"])


@pytest.mark.anyio
async def test_memory_file_pages_and_search_lines_are_masked(services: Services) -> None:
    filler = "-" * 760
    services.files.write_note(
        "Ops notes", f"deploy notes {filler} key {KEY} then rotate\nwifi password: Tr0ub4dor&3\n"
    )
    async with Client(build_mcp_server(services, modules=(files_tools,))) as client:
        pages = [
            _data(
                await client.call_tool("read_memory_file", {"path": "notes/ops-notes.md", "max_tokens": 200})
            )
        ]
        while pages[-1]["next_offset"] is not None:
            args = {"path": "notes/ops-notes.md", "max_tokens": 200, "offset": pages[-1]["next_offset"]}
            pages.append(_data(await client.call_tool("read_memory_file", args)))
        found = _data(await client.call_tool("search_memory_files", {"query": "wifi password"}))
    assert len(pages) >= 2 and _leaks([pages, found]) == [] and "Tr0ub4dor" not in json.dumps([pages, found])
    assert any(p.get("masked") for p in pages) and "[SECRET:" in json.dumps(found)
