"""Read a SectionStream into text and chunks, one section at a time, stopping at the first limit.

The character and chunk limits are checked after every section (a page, a slide, a block of rows),
so an oversized document is refused after reading about one limit's worth of it, and a cancel
takes effect between two sections; no embedding has been paid for when either happens.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from app.core.errors import PayloadTooLarge, UnreadableDocument
from knowledge_base.budget import check_cancel, too_many_chunks
from knowledge_base.chunking import Chunk, Chunker
from knowledge_base.document import ParsedDocument, Section, SectionStream
from knowledge_base.guards import Limits
from knowledge_base.parsers.base import tidy_metadata

MB = 1024 * 1024
# stage ("parse", "embed", "store"), done, total
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Reading:
    """A parsed document and, when a chunker was given, its chunks in document order."""

    document: ParsedDocument
    chunks: list[Chunk]


def read_document(
    stream: SectionStream,
    filename: str,
    limits: Limits,
    *,
    chunker: Chunker | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Reading:
    """Drain the stream: keep non-empty sections, count characters, split chunks as they come."""
    sections: list[Section] = []
    chunks: list[Chunk] = []
    chars = 0
    try:
        for section in stream.sections:
            check_cancel(cancel, filename)
            if not section.text.strip():
                continue
            sections.append(section)
            chars += len(section.text)
            if chars > limits.max_extracted_chars:
                raise over_chars(filename, limits.max_extracted_chars, stream)
            if chunker is not None:
                chunks.extend(chunker.split_section(section, len(chunks)))
                if len(chunks) > limits.max_chunks:
                    raise too_many_chunks(filename, limits.max_chunks)
            if progress is not None:
                progress("parse", stream.done, stream.total)
    finally:
        close = getattr(stream.sections, "close", None)
        if close is not None:
            close()  # a generator stopped early releases its file handles and parser state now
    check_cancel(cancel, filename)
    if not sections:
        raise UnreadableDocument(
            f"{filename}: {stream.empty_reason}", hint="add a document that contains text"
        )
    document = ParsedDocument(
        format=stream.format, sections=tuple(sections), metadata=tidy_metadata(stream.metadata)
    )
    return Reading(document, chunks)


def over_chars(filename: str, max_chars: int, stream: SectionStream) -> PayloadTooLarge:
    """The limit was passed part-way: the total is unknown, so say where reading stopped."""
    where = ""
    if stream.total and stream.unit.startswith("bytes"):
        # "4.8 of 60.0 MB of XML" reads better than eight-digit byte counts.
        unit = stream.unit.removeprefix("bytes")
        where = f" (stopped reading at {stream.done / MB:,.1f} of {stream.total / MB:,.1f} MB{unit})"
    elif stream.total:
        where = f" (stopped reading at {stream.done:,} of {stream.total:,} {stream.unit})"
    elif stream.done:
        where = f" (stopped reading after {stream.done:,} {stream.unit})"
    return PayloadTooLarge(
        f"{filename}: this document has more than {max_chars:,} characters, the limit{where}",
        hint="split it into smaller files, or raise kb.max_extracted_chars in settings.toml",
    )
