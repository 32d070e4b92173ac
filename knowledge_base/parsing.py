"""Bytes + file name → ParsedDocument: size and zip-bomb guards, detection, then the format's parser."""

from __future__ import annotations

import importlib
from types import ModuleType

from app.core.errors import StrataError, UnreadableDocument
from knowledge_base.budget import check_before_parse, check_chars
from knowledge_base.detect import detect_format
from knowledge_base.document import DocumentFormat, ParsedDocument
from knowledge_base.guards import DEFAULT_LIMITS, Limits, check_size, check_zip

_ZIP_FORMATS = {
    DocumentFormat.DOCX,
    DocumentFormat.PPTX,
    DocumentFormat.XLSX,
    DocumentFormat.PAGES,
    DocumentFormat.NUMBERS,
    DocumentFormat.KEYNOTE,
}


def parse_document(data: bytes, filename: str, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
    """Parse one file; every refusal is a StrataError whose message starts with the file name.

    Refusals come as early as they can: size, emptiness, format, package guards and the character
    count of plain text before parsing; the extracted text's length right after."""
    check_size(len(data), filename, limits)
    if _is_blank(data):
        raise UnreadableDocument(f"{filename}: the file is empty", hint="add a document that contains text")
    fmt = detect_format(data, filename)
    if fmt in _ZIP_FORMATS:
        check_zip(data, filename, limits)
    check_before_parse(data, fmt, filename, limits.max_extracted_chars)
    try:
        parsed = _dispatch(fmt, data, filename)
        check_chars(parsed.char_count, filename, limits.max_extracted_chars)
        return parsed
    except StrataError:
        raise
    except RecursionError as exc:  # deeply nested XML/PDF objects; refuse rather than crash
        raise UnreadableDocument(f"{filename}: the document is nested too deeply to read") from exc


def _is_blank(data: bytes) -> bool:
    # `data.strip()` would copy a 100 MB file just to answer this; a non-blank head settles it.
    return not data[:4096].strip() and not data.strip()


def _parser(name: str) -> ModuleType:
    """Parser modules load on first use: pypdf, python-docx, python-pptx and openpyxl together add
    seconds to every CLI / MCP start-up that never touches a document."""
    return importlib.import_module(f"knowledge_base.parsers.{name}")


def _dispatch(fmt: DocumentFormat, data: bytes, filename: str) -> ParsedDocument:
    parsed: ParsedDocument
    if fmt.is_iwork:
        parsed = _parser("iwork").parse(data, filename, fmt)
    elif fmt is DocumentFormat.MD:
        parsed = _parser("text").parse_md(data, filename)
    elif fmt is DocumentFormat.TXT:
        parsed = _parser("text").parse_txt(data, filename)
    else:
        parsed = _parser(fmt.value).parse(data, filename)
    return parsed
