"""Knowledge-base results for agents, masked as they read in their whole document.

A chunk is a ~1000-character cut of a document: a secret split by the cut is not recognizable in
either chunk on its own (half a key, a private key's middle lines). Each chunk is therefore masked
in the context of its document (`PrivacyService.mask_excerpt`), and long text is paged with
`PrivacyService.page`, whose page end never falls inside a secret.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.core.domain import SearchHit
from app.core.errors import NotFound
from app.services.knowledge_service import KnowledgeService
from app.services.privacy_service import PrivacyService
from knowledge_base.values import ChunkHit


def _document_text(knowledge: KnowledgeService, document_id: str) -> str | None:
    try:
        return knowledge.get(document_id).content
    except NotFound:  # deleted since the search: mask the chunk on its own
        return None


def chunk_contents(
    privacy: PrivacyService, knowledge: KnowledgeService, chunks: Sequence[tuple[str, str]], *, reveal: bool
) -> list[str]:
    """The (document id, chunk text) pairs' text, masked in context unless revealing is allowed."""
    if reveal and privacy.check_reveal(reveal):
        return [text for _, text in chunks]
    documents: dict[str, str | None] = {}
    out = []
    for document_id, text in chunks:
        if document_id not in documents:
            documents[document_id] = _document_text(knowledge, document_id)
        out.append(privacy.mask_excerpt(text, documents[document_id]) or text)
    return out


def chunk_items(
    privacy: PrivacyService, knowledge: KnowledgeService, hits: Sequence[ChunkHit], *, reveal: bool = False
) -> list[tuple[dict[str, Any], bool]]:
    """Each hit as a dict, masked once: the content in the context of its document, the other
    text fields (file name, heading) as any result's are; with whether anything was masked."""
    contents = chunk_contents(privacy, knowledge, [(h.document_id, h.content) for h in hits], reveal=reveal)
    out = []
    for hit, content in zip(hits, contents, strict=True):
        item = hit.to_dict()
        rest = privacy.mask_payload({k: v for k, v in item.items() if k != "content"}, reveal=reveal)
        masked = content != hit.content or any(rest[k] != item[k] for k in rest)
        out.append(({k: content if k == "content" else rest[k] for k in item}, masked))
    return out


def chunk_hits(
    privacy: PrivacyService, knowledge: KnowledgeService, hits: Sequence[ChunkHit], *, reveal: bool = False
) -> list[dict[str, Any]]:
    """Search hits for an agent: masked once (`masked: true` when anything was), `untrusted`
    flags as for every other result."""
    items = chunk_items(privacy, knowledge, hits, reveal=reveal)
    return [
        privacy.marked(item, text=hit.content, masked=masked)
        for hit, (item, masked) in zip(hits, items, strict=True)
    ]


def masked_search_hits(
    privacy: PrivacyService, knowledge: KnowledgeService, hits: Sequence[SearchHit], *, reveal: bool = False
) -> list[SearchHit]:
    """Unified-search hits with their whole text masked before any snippet is clipped from it
    (a clip could cut a secret), knowledge-base chunks in the context of their document."""
    if reveal and privacy.check_reveal(reveal):
        return list(hits)
    chunks = [h for h in hits if h.kind == "chunk" and h.document_id and h.content]
    in_context = dict(
        zip(
            (h.id for h in chunks),
            chunk_contents(
                privacy, knowledge, [(str(h.document_id), h.content or "") for h in chunks], reveal=False
            ),
            strict=True,
        )
    )
    return [
        replace(h, content=in_context[h.id] if h.id in in_context else privacy.mask(h.content)) for h in hits
    ]
