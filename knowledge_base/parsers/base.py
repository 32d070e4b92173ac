"""Helpers every parser shares: whitespace cleanup, the "no text" check, metadata tidying."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from app.core.errors import UnreadableDocument
from knowledge_base.document import DocumentFormat, ParsedDocument, Section

_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(text: str) -> str:
    """Normalize line endings and runs of spaces, drop control characters, keep paragraph breaks."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def corrupt(filename: str, what: str, exc: BaseException) -> UnreadableDocument:
    """The error for a file of a known type that its library cannot read."""
    detail = str(exc).strip() or type(exc).__name__
    return UnreadableDocument(
        f"{filename}: corrupt or unreadable {what} ({detail[:200]})",
        hint="open and re-save the file in the application that created it, then add it again",
    )


def build(
    fmt: DocumentFormat,
    filename: str,
    sections: Iterable[Section],
    metadata: dict[str, Any],
    *,
    empty_reason: str = "it contains no text",
) -> ParsedDocument:
    """Drop empty sections; refuse a document with no text at all, naming the file."""
    kept = tuple(s for s in sections if s.text.strip())
    if not kept:
        raise UnreadableDocument(f"{filename}: {empty_reason}", hint="add a document that contains text")
    return ParsedDocument(format=fmt, sections=kept, metadata=tidy_metadata(metadata))


def tidy_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """Drop empty values and stringify dates so metadata is JSON-ready."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if value is None or value == "":
            continue
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        elif isinstance(value, str):
            value = value.strip()
            if not value:
                continue
        out[key] = value
    return out
