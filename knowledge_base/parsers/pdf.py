"""PDF via pypdf, page by page: one section per page; encrypted and image-only files get their own errors."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from pypdf import PasswordType, PdfReader
from pypdf.generic import ArrayObject, IndirectObject

from app.core.errors import StrataError, UnreadableDocument
from knowledge_base.document import DocumentFormat, Section, SectionStream
from knowledge_base.parsers.base import clean, corrupt

IMAGE_ONLY = "no extractable text (a scanned or image-only PDF?)"


def stream(data: bytes, filename: str, fmt: DocumentFormat = DocumentFormat.PDF) -> SectionStream:
    """Open the PDF (refusing a password-protected one at once) and yield its pages one at a time.

    `fmt` lets iWork packages reuse this for their embedded preview PDF."""
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        # Many PDFs carry only an owner password (printing/copy rights) and open with an empty one.
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise UnreadableDocument(
                f"{filename}: the PDF is encrypted with a password",
                hint="remove the password (e.g. print to a new PDF) and add it again",
            )
        pages = len(reader.pages)
        metadata = _metadata(reader)
    except StrataError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files; convert them at the seam
        raise corrupt(filename, "PDF", exc) from exc
    metadata["pages"] = pages
    out = SectionStream(fmt, iter(()), metadata, total=pages, unit="pages")
    out.empty_reason = IMAGE_ONLY if pages else "the PDF has no pages"
    out.sections = _pages(reader, filename, out)
    return out


def _pages(reader: PdfReader, filename: str, out: SectionStream) -> Iterator[Section]:
    for number in range(1, out.total + 1):
        try:
            page = reader.pages[number - 1]
            text = page.extract_text() or ""
            _forget_contents(reader, page)
        except StrataError:
            raise
        except Exception as exc:  # a damaged page: name it, the pages before it were fine
            raise corrupt(filename, f"PDF (page {number})", exc) from exc
        out.done = number
        yield Section(text=clean(text), page=number)


def _forget_contents(reader: PdfReader, page: Any) -> None:
    """Drop the page's content streams from pypdf's object cache once its text is out.

    pypdf keeps every object it resolved, raw and decoded, for the reader's life; the content streams
    are most of a PDF's bytes and no other page uses them, so without this the parse holds the
    whole file decoded by its last page. Shared objects (fonts, images' dictionaries) stay cached."""
    contents = page.get("/Contents")
    refs: list[Any] = []
    if isinstance(contents, IndirectObject):
        refs.append(contents)
        contents = reader.resolved_objects.get((contents.generation, contents.idnum))
    if isinstance(contents, ArrayObject):
        refs.extend(item for item in contents if isinstance(item, IndirectObject))
    for ref in refs:
        reader.resolved_objects.pop((ref.generation, ref.idnum), None)


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
