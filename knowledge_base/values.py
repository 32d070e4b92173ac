"""Values the knowledge base hands out: document summaries, full documents, search hits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.clock import iso


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """One rag_documents row without its text (listing, upload result)."""

    id: str
    user_id: str
    file_name: str
    content_type: str
    format: str
    size_bytes: int
    total_chunks: int
    uploaded_at: int
    content_hash: str
    blob_path: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "fileName": self.file_name,
            "contentType": self.content_type,
            "format": self.format,
            "sizeBytes": self.size_bytes,
            "totalChunks": self.total_chunks,
            "uploadedAt": iso(self.uploaded_at),
            "contentHash": self.content_hash,
            "metadata": self.metadata,
        }


@dataclass(frozen=True, slots=True)
class DocumentContent:
    """A document's metadata plus its complete extracted text."""

    info: DocumentInfo
    content: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.info.to_dict(), "content": self.content}


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A chunk found by search, with its document and location (page / slide / sheet / heading).

    `similarity` is the cosine similarity of the vector match, None for keyword-only matches.
    """

    chunk_id: str
    document_id: str
    file_name: str
    chunk_index: int
    content: str
    score: float
    similarity: float | None
    uploaded_at: int
    location: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "chunkId": self.chunk_id,
            "documentId": self.document_id,
            "fileName": self.file_name,
            "chunkIndex": self.chunk_index,
            "content": self.content,
            "score": round(self.score, 6),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
        }
        data.update({k: v for k, v in self.location.items() if k != "chars"})
        return data
