"""Values for a parsed document: formats, located sections of text, extracted metadata."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class DocumentFormat(StrEnum):
    """Every format the knowledge base reads; detected from content, not trusted from the name."""

    PDF = "pdf"
    DOCX = "docx"
    PPTX = "pptx"
    XLSX = "xlsx"
    CSV = "csv"
    TXT = "txt"
    MD = "md"
    HTML = "html"
    PAGES = "pages"
    NUMBERS = "numbers"
    KEYNOTE = "key"

    @property
    def content_type(self) -> str:
        return _CONTENT_TYPES[self]

    @property
    def is_iwork(self) -> bool:
        return self in (DocumentFormat.PAGES, DocumentFormat.NUMBERS, DocumentFormat.KEYNOTE)


_CONTENT_TYPES = {
    DocumentFormat.PDF: "application/pdf",
    DocumentFormat.DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    DocumentFormat.PPTX: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    DocumentFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    DocumentFormat.CSV: "text/csv",
    DocumentFormat.TXT: "text/plain",
    DocumentFormat.MD: "text/markdown",
    DocumentFormat.HTML: "text/html",
    DocumentFormat.PAGES: "application/vnd.apple.pages",
    DocumentFormat.NUMBERS: "application/vnd.apple.numbers",
    DocumentFormat.KEYNOTE: "application/vnd.apple.keynote",
}


@dataclass(frozen=True, slots=True)
class Section:
    """A run of text with where it came from; chunks never straddle two sections."""

    text: str
    page: int | None = None
    slide: int | None = None
    sheet: str | None = None
    heading: str | None = None

    def location(self) -> dict[str, Any]:
        """The non-empty location fields, as stored in chunk metadata."""
        found = {"page": self.page, "slide": self.slide, "sheet": self.sheet, "heading": self.heading}
        return {key: value for key, value in found.items() if value is not None}

    def marker(self) -> str | None:
        """A human-readable header used when the full text is rendered."""
        if self.page is not None:
            return f"[Page {self.page}]"
        if self.slide is not None:
            return f"[Slide {self.slide}]"
        if self.sheet is not None:
            return f"[Sheet {self.sheet}]"
        return None


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """The text of one file, split into located sections, plus metadata (title, author, pages…)."""

    format: DocumentFormat
    sections: tuple[Section, ...]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def content_type(self) -> str:
        return self.format.content_type

    @property
    def char_count(self) -> int:
        return sum(len(s.text) for s in self.sections)

    def full_text(self) -> str:
        """The whole document as one string, with page/slide/sheet markers between sections."""
        return render_sections(self.sections)


def render_sections(sections: tuple[Section, ...] | list[Section]) -> str:
    """Sections joined by blank lines, each headed by its marker; a long sheet streamed in several
    sections keeps one marker (its pieces are joined by a line break, as its rows were)."""
    parts: list[str] = []
    previous: str | None = None
    for section in sections:
        marker = section.marker()
        if marker is not None and marker == previous and section.sheet is not None and parts:
            parts[-1] = f"{parts[-1]}\n{section.text}"
            continue
        previous = marker
        parts.append(f"{marker}\n{section.text}" if marker else section.text)
    return "\n\n".join(parts)


@dataclass(slots=True)
class SectionStream:
    """A document being parsed: its sections come one at a time, so the parser never holds the whole
    document, and the reader can stop at a limit or a cancel before the rest is parsed.

    `metadata` is complete once `sections` is exhausted (a PDF's page count is known at once, a CSV's
    row count only at the end). `done` / `total` count the parser's own units for progress
    (pages, slides, sheets, or bytes of the main XML part); `total` is 0 when unknown."""

    format: DocumentFormat
    sections: Iterator[Section]
    metadata: dict[str, Any] = field(default_factory=dict)
    total: int = 0
    done: int = 0
    unit: str = "sections"
    empty_reason: str = "it contains no text"
