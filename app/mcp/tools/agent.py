"""The agent surface: one `search` over every kind, one `fetch` for any id it returns, and `brief`.

`search` and `fetch` follow the names many agent clients expect for a retrieval connector.
Results are compact and budget-bounded (app/mcp/budget.py); `fetch` discloses progressively:
`detail="summary"` first, `"full"` on request. The wake-up brief is also a prompt, and
documents are resources (`strata://documents/{id}`), for clients that browse those.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from app.bootstrap import Services
from app.core.clock import iso
from app.core.domain import SearchHit
from app.core.errors import InvalidInput, NotFound
from app.core.search.filters import filters_from, parse_bound
from app.mcp.budget import DEFAULT_MAX_TOKENS, clip, paginate
from app.mcp.errors import strata_tool
from app.mcp.tools.memory import REVEAL, SNIPPET_CHARS, full_record, neighbour_line
from app.services.brief_service import DEFAULT_MAX_TOKENS as BRIEF_TOKENS
from app.services.privacy_results import chunk_contents, masked_search_hits

SEARCH_LIMIT = 200
SUMMARY_CHARS = 1500

SEARCH_DESCRIPTION = """Search everything the user keeps in Strata at once: chat messages, summaries
of older conversations, uploaded documents, extracted insights and memory files. Use it first for
any question about what was said, decided, shared or written; the query is plain words (date
phrases such as "last week" become filters). Hits below the relevance floor are left out, so an
empty list means "no close match" (set loose=true only to see the nearest anyway). Returns compact
hits with an `id`; pass ids to fetch to read more."""

FETCH_DESCRIPTION = """Read what search (or brief) returned, by id: messages with the conversation
around them, summaries, document passages or whole documents, insights, memory files. Start with
detail="summary"; ask for detail="full" only when the summary is not enough. Long text is paged:
call again with next_offset."""

BRIEF_DESCRIPTION = """The wake-up brief: who the user is, their open loops (commitments, what they
wait on, questions to them), recent decisions, upcoming deadlines, the most active people and
conversations this week, and what is new since `since`. Call it once at the start of a
conversation or when asked "what is on my plate"; every line has an id for fetch."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def hit_id(hit: SearchHit) -> str:
    """Every hit id carries its kind (`message:12`, `chunk:…`, `summary:…`), so fetch can route it."""
    return hit.id if ":" in hit.id else f"{hit.kind}:{hit.id}"


def compact(hit: SearchHit) -> dict[str, Any]:
    item: dict[str, Any] = {"id": hit_id(hit), "kind": hit.kind, "score": round(hit.score, 4)}
    if hit.timestamp is not None:
        item["time"] = iso(hit.timestamp)
    where = "/".join(p for p in (hit.platform, hit.channel) if p)
    if hit.kind == "chunk":
        where = str(hit.extra.get("file_name") or hit.channel or "")
    if where:
        item["where"] = where
    if hit.person:
        item["person"] = hit.person
    for key in ("relevance", "untrusted", "flags"):
        if key in hit.extra:
            item[key] = hit.extra[key]
    item["snippet"] = clip(hit.content, SNIPPET_CHARS)
    return item


def register(server: MCPServer, services: Services) -> None:
    memory = services.memory
    privacy = services.privacy

    @strata_tool
    def search(
        query: Annotated[
            str, Field(min_length=1, max_length=2000, description="what to look for, plain words")
        ],
        since: Annotated[str | None, Field(description="only material from this ISO date/time on")] = None,
        until: Annotated[str | None, Field(description="only material up to this ISO date/time")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="hits per page (default 10)")] = 10,
        offset: Annotated[int, Field(ge=0, le=190, description="skip this many hits (paging)")] = 0,
        loose: Annotated[bool, Field(description="also return hits below the relevance floor")] = False,
        max_tokens: Annotated[
            int, Field(ge=200, le=20_000, description="size budget in tokens (≈4 characters)")
        ] = DEFAULT_MAX_TOKENS,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        reveal = privacy.check_reveal(reveal)
        filters = filters_from({"since": since, "until": until})
        end = offset + limit
        options: dict[str, Any] = {"include": tuple(memory.extra_sources)}
        if loose:
            options["loose"] = True
        hits = memory.search(query, filters, min(end + 1, SEARCH_LIMIT), **options)
        # Results go into a cloud model's context: secrets masked, injection-like text marked.
        # Masked before the snippet is clipped (a clip could cut a secret in two); chunks as they
        # read in their document.
        shown = masked_search_hits(privacy, services.knowledge, hits[offset:end], reveal=reveal)
        window = [
            _outgoing(privacy, compact(m), h, m, reveal) for h, m in zip(hits[offset:end], shown, strict=True)
        ]
        page = paginate(window, offset=offset, max_tokens=max_tokens, has_more=len(hits) > end)
        extra: dict[str, Any] = {"query": query}
        if not hits:
            extra["note"] = "no close match; try other words, or loose=true for the nearest anyway"
        return page.envelope("hits", **extra)

    @strata_tool
    def fetch(
        ids: Annotated[list[str], Field(min_length=1, max_length=20, description="ids from search or brief")],
        detail: Annotated[
            Literal["summary", "full"], Field(description="summary first; full for whole texts")
        ] = "summary",
        offset: Annotated[int, Field(ge=0, description="character offset into long text (paging)")] = 0,
        max_tokens: Annotated[
            int, Field(ge=200, le=20_000, description="size budget in tokens (≈4 characters)")
        ] = 4000,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        reveal = privacy.check_reveal(reveal)
        records: list[dict[str, Any]] = []
        missing: list[str] = []
        malformed: list[InvalidInput] = []
        for raw in ids:
            try:
                record = _fetch_one(services, raw.strip(), detail, offset, max_tokens, reveal)
                text = record.get("content") if isinstance(record.get("content"), str) else None
                records.append(privacy.outgoing(record, text=text, reveal=reveal))
            except NotFound:
                missing.append(raw)
            except InvalidInput as exc:
                missing.append(raw)
                malformed.append(exc)
        if malformed and len(malformed) == len(ids):
            raise malformed[0]  # nothing usable was asked for: say how ids look
        page = paginate(records, offset=0, max_tokens=max_tokens)
        return page.envelope("records", missing=missing)

    @strata_tool
    def brief(
        since: Annotated[
            str | None, Field(description="report what is new since this ISO time (default 24 h ago)")
        ] = None,
        max_tokens: Annotated[
            int, Field(ge=200, le=20_000, description="size budget in tokens (default 1500)")
        ] = BRIEF_TOKENS,
    ) -> dict[str, Any]:
        assert services.brief is not None
        return services.brief.brief(
            since=parse_bound(since, end_of_day=False), max_tokens=max_tokens
        ).to_dict()

    server.add_tool(search, description=SEARCH_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(fetch, description=FETCH_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(brief, description=BRIEF_DESCRIPTION, annotations=READ_ONLY)

    @server.prompt(name="wake_up", title="Wake-up brief", description="What to know before starting")
    def wake_up() -> str:
        assert services.brief is not None
        return (
            "Here is the user's current picture from their local memory (Strata). Use it as context; "
            "ids in brackets can be read with the fetch tool.\n\n"
            + (privacy.mask(services.brief.brief().to_markdown()) or "")
        )

    @server.resource(
        "strata://documents/{document_id}",
        name="document",
        description="A knowledge-base document's extracted text",
        mime_type="text/plain",
    )
    def document_resource(document_id: str) -> str:
        return privacy.mask(services.knowledge.get(document_id).content) or ""

    @server.resource(
        "strata://files/{folder}/{name}",
        name="memory_file",
        description="A memory file (people/, channels/, chats/, projects/, notes/, strategy/) as markdown",
        mime_type="text/markdown",
    )
    def memory_file_resource(folder: str, name: str) -> str:
        return privacy.mask(services.files.read(f"{folder}/{name}").text) or ""


def _outgoing(
    privacy: Any, item: dict[str, Any], hit: SearchHit, shown: SearchHit, reveal: bool
) -> dict[str, Any]:
    masked_before = shown.content != hit.content
    out: dict[str, Any] = privacy.outgoing(item, text=hit.content, reveal=reveal, masked_before=masked_before)
    return out


def _fetch_one(
    services: Services, raw: str, detail: str, offset: int, max_tokens: int, reveal: bool
) -> dict[str, Any]:
    kind, _, key = raw.partition(":") if ":" in raw else ("message", "", raw)
    budget_chars = max_tokens * 4
    if kind == "message":
        if not key.isdigit():
            raise NotFound(raw)
        around = 1 if detail == "summary" else 5
        found = services.memory.context(int(key), before=around, after=around)
        item = {"id": f"message:{key}", "kind": "message", **full_record(found.record)}
        if found.record.content is None and found.record.summary_ref_id:
            item["summary"] = services.forgetting.summary(found.record.summary_ref_id).to_dict()
        item["context"] = [neighbour_line(n) for n in found.neighbours]
        return item
    if kind == "summary":
        data = services.forgetting.summary(key).to_dict()
        if detail == "summary":
            data = {k: v for k, v in data.items() if k not in ("keyPoints", "records", "messageIds")}
        return {"id": raw, "kind": "summary", **data}
    if kind == "chunk":
        chunk = services.knowledge.chunk(key)
        document_id, text = str(chunk["documentId"]), str(chunk["content"])
        if detail != "full":
            (content,) = chunk_contents(
                services.privacy, services.knowledge, [(document_id, text)], reveal=reveal
            )
            return {"id": raw, "kind": "chunk", **chunk, "content": content}
        # The whole document is loaded once: it masks the chunk in context and is returned too.
        document = services.knowledge.get(document_id)
        content = services.privacy.mask_excerpt(text, document.content, reveal=reveal) or text
        item = {"id": raw, "kind": "chunk", **chunk, "content": content}
        item["document"] = _document(services, document, offset, budget_chars, reveal)
        return item
    if kind == "document":
        chars = SUMMARY_CHARS if detail == "summary" else budget_chars
        return _document(services, services.knowledge.get(key), offset, chars, reveal)
    if kind == "file":  # a memory file (issue 17): `file:people/anna.md`
        chars = SUMMARY_CHARS if detail == "summary" else budget_chars
        return _memory_file(services, key, offset, chars, reveal)
    if kind == "insight":
        ranked = services.insights.get(key)
        return {"id": raw, "kind": "insight", **ranked.to_dict(full=detail == "full")}
    raise InvalidInput(
        f"unknown id {raw!r}", hint="use ids exactly as search or brief returned them (e.g. message:12)"
    )


def _memory_file(services: Services, path: str, offset: int, chars: int, reveal: bool) -> dict[str, Any]:
    found = services.files.read(path)
    # Paged text is masked as it reads in the whole text: no secret is cut in halves.
    content, end = services.privacy.page(found.text, offset, chars, reveal=reveal)
    item: dict[str, Any] = {
        "id": f"file:{found.path}",
        "kind": "memory_file",
        "path": found.path,
        "title": found.title,
        "totalChars": len(found.text),
        "offset": offset,
        "content": content,
    }
    if end < len(found.text):
        item["next_offset"] = end
    return item


def _document(services: Services, document: Any, offset: int, chars: int, reveal: bool) -> dict[str, Any]:
    text = document.content
    content, end = services.privacy.page(text, offset, chars, reveal=reveal)
    item: dict[str, Any] = {
        "id": f"document:{document.info.id}",
        "kind": "document",
        "fileName": document.info.file_name,
        "totalChars": len(text),
        "offset": offset,
        "content": content,
    }
    if end < len(text):
        item["next_offset"] = end
    return item
