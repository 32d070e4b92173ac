"""Knowledge-base tools with the specification's names and arguments.

searchKnowledgeBase(query, limit, documentIds?), getFullDocumentContent(documentId),
listKnowledgeBaseDocuments(limit). getFullDocumentContent also takes an optional `offset` so a
long document can be read in bounded pages (a 100-page PDF is ~250,000 characters).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from app.bootstrap import Services
from app.core.clock import iso
from app.mcp.errors import strata_tool
from app.mcp.tools.memory import REVEAL
from app.services.privacy_results import chunk_hits

FULL_TEXT_PAGE_CHARS = 40_000  # ~10k tokens per call

SEARCH_DESCRIPTION = """Semantic search across the user's uploaded documents (knowledge base: PDF, Word,
PowerPoint, Excel, CSV, text, Markdown, HTML, Apple iWork), split into ~1000-character chunks.

Use it when the user asks about the content of their files, reports, slides, spreadsheets or notes
they uploaded, or about their own stated preferences (kept in the document memory.txt).
Returns the best chunks (default 5) with `documentId`, `fileName`, `chunkIndex`, location
(`page`, `slide`, `sheet`, `heading` when known), `score` and `similarity` (the raw cosine). Chunks need
a close match by meaning (the specification's 0.7 cosine, mapped to the local model's scale) or an
exact keyword match. Pass `documentIds` to search only some documents;
call getFullDocumentContent with a `documentId` to read the whole document."""

FULL_DESCRIPTION = """The complete extracted text of one knowledge-base document, by the `documentId`
from searchKnowledgeBase or listKnowledgeBaseDocuments, with its metadata (file name, type, title,
author, pages…). Pages, slides and sheets are marked in the text as [Page n], [Slide n], [Sheet x].
Long documents come in pages of up to 40,000 characters: if `next_offset` is set, call again with it.
Detected secrets are masked unless `reveal` is true and the user allowed it."""

LIST_DESCRIPTION = """The most recently uploaded knowledge-base documents: `id`, `fileName`, type,
size, number of chunks, upload time and extracted metadata (title, author, pages). Use it to find
a document's id, or to see what the user has uploaded."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _untrusted(metadata: dict[str, Any]) -> dict[str, Any]:
    """A document flagged at upload as reading like instructions to a model: data, never orders."""
    flags = list(metadata.get("flags") or [])
    return {"flags": flags, "untrusted": True} if flags else {}


def register(server: MCPServer, services: Services) -> None:
    knowledge = services.knowledge

    @strata_tool
    def searchKnowledgeBase(  # the specification's tool name (camelCase)
        query: Annotated[str, Field(min_length=1, max_length=4000, description="what to look for")],
        limit: Annotated[int, Field(ge=1, le=50, description="chunks to return")] = 5,
        documentIds: Annotated[  # the specification's argument name
            list[str] | None, Field(max_length=200, description="only search these document ids")
        ] = None,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        reveal = services.privacy.check_reveal(reveal)
        hits = knowledge.search(query, limit, documentIds or None)
        # Chunks go into a cloud model's context: detected secrets are masked, each chunk as it
        # reads in its document (a secret cut by a chunk edge is masked in both chunks).
        return {"query": query, "results": chunk_hits(services.privacy, knowledge, hits, reveal=reveal)}

    @strata_tool
    def getFullDocumentContent(
        documentId: Annotated[str, Field(min_length=1, max_length=64, description="the document's id")],
        offset: Annotated[int, Field(ge=0, description="character offset, from next_offset")] = 0,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        reveal = services.privacy.check_reveal(reveal)
        document = knowledge.get(documentId)
        text = document.content
        # Masked as the page reads in the whole document; the page end never cuts a secret, so a
        # page may be a few characters shorter than 40,000 (follow next_offset).
        content, end = services.privacy.page(text, offset, FULL_TEXT_PAGE_CHARS, reveal=reveal)
        info = document.info
        return {
            "documentId": info.id,
            "fileName": info.file_name,
            "contentType": info.content_type,
            "uploadedAt": iso(info.uploaded_at),
            "metadata": info.metadata,
            "totalChars": len(text),
            "offset": offset,
            "content": content,
            "next_offset": end if end < len(text) else None,
            **_untrusted(info.metadata),
        }

    @strata_tool
    def listKnowledgeBaseDocuments(
        limit: Annotated[int, Field(ge=1, le=200, description="how many documents")] = 20,
    ) -> dict[str, Any]:
        documents = knowledge.list_documents(limit)
        return {"documents": [d.to_dict() for d in documents], "total": knowledge.count()}

    server.add_tool(searchKnowledgeBase, description=SEARCH_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(getFullDocumentContent, description=FULL_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(listKnowledgeBaseDocuments, description=LIST_DESCRIPTION, annotations=READ_ONLY)
