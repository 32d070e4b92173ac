"""Split a parsed document into located, overlapping chunks (RecursiveCharacterTextSplitter, 1000/200)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from knowledge_base.document import ParsedDocument, Section

CHUNK_SIZE = 1000
CHUNK_OVERLAP = 200


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable piece: its position in the document, its text, and where it came from."""

    index: int
    content: str
    location: dict[str, Any] = field(default_factory=dict)

    @property
    def embedding_text(self) -> str:
        """What gets embedded: the heading travels with the text, since a bare paragraph lacks its topic."""
        heading = self.location.get("heading")
        sheet = self.location.get("sheet")
        context = heading or (f"Sheet {sheet}" if sheet else None)
        if context and not self.content.startswith(context):
            return f"{context}\n{self.content}"
        return self.content

    def metadata(self) -> dict[str, Any]:
        """Chunk-level metadata as stored (rag_chunks.metadata): location plus character count."""
        return {**self.location, "chars": len(self.content)}


class Chunker:
    """Splits each section separately, so every chunk has exactly one page / slide / sheet."""

    def __init__(self, chunk_size: int = CHUNK_SIZE, chunk_overlap: int = CHUNK_OVERLAP) -> None:
        if chunk_size <= 0 or not 0 <= chunk_overlap < chunk_size:
            raise ValueError("chunk_size must be positive and chunk_overlap in [0, chunk_size)")
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self._splitter: Any = None

    def _split_text(self, text: str) -> list[str]:
        if self._splitter is None:
            # Loaded on first use: langchain-text-splitters pulls in langchain-core (seconds at start-up).
            splitters = importlib.import_module("langchain_text_splitters")
            self._splitter = splitters.RecursiveCharacterTextSplitter(
                chunk_size=self.chunk_size,
                chunk_overlap=self.chunk_overlap,
                length_function=len,
                is_separator_regex=False,
            )
        pieces: list[str] = self._splitter.split_text(text)
        return pieces

    def split(self, document: ParsedDocument, max_chunks: int | None = None) -> list[Chunk]:
        """The chunks in document order; ChunkLimitExceeded as soon as there are more than `max_chunks`."""
        chunks: list[Chunk] = []
        for section in document.sections:
            chunks.extend(self.split_section(section, len(chunks)))
            if max_chunks is not None and len(chunks) > max_chunks:
                raise ChunkLimitExceeded(max_chunks)
        return chunks

    def split_section(self, section: Section, first_index: int) -> list[Chunk]:
        """One section's chunks, numbered from `first_index` (the chunks of the sections before it)."""
        location = section.location()
        chunks: list[Chunk] = []
        for piece in self._split_text(section.text):
            piece = piece.strip()
            if piece:
                chunks.append(Chunk(index=first_index + len(chunks), content=piece, location=location))
        return chunks


class ChunkLimitExceeded(Exception):
    """Raised by `Chunker.split`; the store turns it into a PayloadTooLarge naming the file."""

    def __init__(self, max_chunks: int) -> None:
        super().__init__(f"more than {max_chunks} chunks")
        self.max_chunks = max_chunks
