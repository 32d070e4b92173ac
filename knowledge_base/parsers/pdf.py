"""PDF via pypdf: one section per page; encrypted and image-only files get their own clear errors."""

from __future__ import annotations

import io
from typing import Any

from pypdf import PasswordType, PdfReader

from app.core.errors import StrataError, UnreadableDocument
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean, corrupt


def parse(data: bytes, filename: str, fmt: DocumentFormat = DocumentFormat.PDF) -> ParsedDocument:
    """Parse a PDF; `fmt` lets iWork packages reuse this for their embedded preview PDF."""
    try:
        return _parse(data, filename, fmt)
    except StrataError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files; convert them at the seam
        raise corrupt(filename, "PDF", exc) from exc


def _parse(data: bytes, filename: str, fmt: DocumentFormat) -> ParsedDocument:
    reader = PdfReader(io.BytesIO(data), strict=False)
    # Many PDFs carry only an owner password (printing/copy rights) and open with an empty one.
    if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise UnreadableDocument(
            f"{filename}: the PDF is encrypted with a password",
            hint="remove the password (e.g. print to a new PDF) and add it again",
        )
    sections = [
        Section(text=clean(page.extract_text() or ""), page=number)
        for number, page in enumerate(reader.pages, start=1)
    ]
    metadata = _metadata(reader)
    metadata["pages"] = len(reader.pages)
    return build(
        fmt,
        filename,
        sections,
        metadata,
        empty_reason="no extractable text (a scanned or image-only PDF?)"
        if reader.pages
        else "the PDF has no pages",
    )


def _metadata(reader: PdfReader) -> dict[str, Any]:
    try:
        info = reader.metadata
    except Exception:  # a broken Info dictionary must not cost the text
        return {}
    if info is None:
        return {}
    return {
        "title": _safe(lambda: info.title),
        "author": _safe(lambda: info.author),
        "subject": _safe(lambda: info.subject),
        "created": _safe(lambda: info.creation_date),
    }


def _safe(getter: Any) -> Any:
    try:
        value = getter()
    except Exception:
        return None
    return str(value) if value is not None and not hasattr(value, "isoformat") else value
