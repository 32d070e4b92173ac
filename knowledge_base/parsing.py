"""Bytes + file name → SectionStream: size and zip-bomb guards, detection, then the format's parser."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

from app.core.errors import StrataError, UnreadableDocument
from knowledge_base.budget import check_before_parse
from knowledge_base.detect import detect_format
from knowledge_base.document import DocumentFormat, ParsedDocument, Section, SectionStream
from knowledge_base.guards import DEFAULT_LIMITS, Limits, check_size, check_zip
from knowledge_base.reading import read_document

_ZIP_FORMATS = {
    DocumentFormat.DOCX,
    DocumentFormat.PPTX,
    DocumentFormat.XLSX,
    DocumentFormat.PAGES,
    DocumentFormat.NUMBERS,
    DocumentFormat.KEYNOTE,
}
# Formats parsed section by section; the others are small once the character pre-count passed.
_STREAMED = {
    DocumentFormat.PDF,
    DocumentFormat.DOCX,
    DocumentFormat.PPTX,
    DocumentFormat.XLSX,
    DocumentFormat.CSV,
}


def open_document(data: bytes, filename: str, limits: Limits = DEFAULT_LIMITS) -> SectionStream:
    """Check the file and start parsing it; every refusal is a StrataError whose message starts with
    the file name.

    Refusals come as early as they can: size, emptiness, format, package guards and the character
    count of plain text before parsing; the extracted text's length as the sections are read
    (`reading.read_document`)."""
    check_size(len(data), filename, limits)
    if _is_blank(data):
        raise UnreadableDocument(f"{filename}: the file is empty", hint="add a document that contains text")
    fmt = detect_format(data, filename)
    if fmt in _ZIP_FORMATS:
        check_zip(data, filename, limits)
    check_before_parse(data, fmt, filename, limits.max_extracted_chars)
    try:
        return _dispatch(fmt, data, filename)
    except StrataError:
        raise
    except RecursionError as exc:  # deeply nested XML/PDF objects; refuse rather than crash
        raise nested_too_deeply(filename) from exc


def parse_document(data: bytes, filename: str, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
    """The whole document at once, with the same checks an add makes (tests, previews)."""
    stream = open_document(data, filename, limits)
    try:
        return read_document(stream, filename, limits).document
    except RecursionError as exc:
        raise nested_too_deeply(filename) from exc


def nested_too_deeply(filename: str) -> UnreadableDocument:
    return UnreadableDocument(
        f"{filename}: the document is nested too deeply to read",
        hint="open and re-save it in the application that created it, then add it again",
    )


def _is_blank(data: bytes) -> bool:
    # `data.strip()` would copy a 100 MB file just to answer this; a non-blank head settles it.
    return not data[:4096].strip() and not data.strip()


def _parser(name: str) -> ModuleType:
    """Parser modules load on first use: pypdf, python-docx, python-pptx and openpyxl together add
    seconds to every CLI / MCP start-up that never touches a document."""
    return importlib.import_module(f"knowledge_base.parsers.{name}")


def _dispatch(fmt: DocumentFormat, data: bytes, filename: str) -> SectionStream:
    if fmt.is_iwork:
        stream: SectionStream = _parser("iwork").stream(data, filename, fmt)
        return stream
    if fmt in _STREAMED:
        stream = _parser(fmt.value).stream(data, filename)
        return stream
    parsed: ParsedDocument
    if fmt is DocumentFormat.MD:
        parsed = _parser("text").parse_md(data, filename)
    elif fmt is DocumentFormat.TXT:
        parsed = _parser("text").parse_txt(data, filename)
    else:
        parsed = _parser(fmt.value).parse(data, filename)
    return whole(parsed)


def whole(parsed: ParsedDocument) -> SectionStream:
    """A document parsed in one go, handed on as a stream of its sections."""
    out = SectionStream(parsed.format, iter(()), dict(parsed.metadata), total=len(parsed.sections))

    def sections() -> Iterator[Section]:
        for number, section in enumerate(parsed.sections, start=1):
            out.done = number
            yield section

    out.sections = sections()
    return out
