"""Everything a knowledge-base document may leave behind: rows, vectors, keyword entries, files."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.bootstrap import Services
from knowledge_base.config import CHUNK_KIND
from knowledge_base.models import RagChunkRow, RagDocumentRow


@dataclass(frozen=True)
class Footprint:
    documents: int
    chunks: int
    vectors: int
    keywords: int
    files: int

    @property
    def empty(self) -> bool:
        return self == Footprint(0, 0, 0, 0, 0)


def footprint(services: Services) -> Footprint:
    with services.db.read() as session:
        documents = session.scalar(select(func.count()).select_from(RagDocumentRow)) or 0
        chunks = session.scalar(select(func.count()).select_from(RagChunkRow)) or 0
        keywords = services.keywords.count(session, CHUNK_KIND)
    folder = services.layout.documents
    files = len([p for p in folder.iterdir()]) if folder.is_dir() else 0
    return Footprint(documents, chunks, services.knowledge.kb.collection.count(), keywords, files)
