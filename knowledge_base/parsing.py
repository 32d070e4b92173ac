"""Bytes + file name → ParsedDocument: size and zip-bomb guards, detection, then the format's parser."""

from __future__ import annotations

from app.core.errors import StrataError, UnreadableDocument
from knowledge_base.detect import detect_format
from knowledge_base.document import DocumentFormat, ParsedDocument
from knowledge_base.guards import DEFAULT_LIMITS, Limits, check_size, check_zip
from knowledge_base.parsers import csv, docx, html, iwork, pdf, pptx, text, xlsx

_ZIP_FORMATS = {
    DocumentFormat.DOCX,
    DocumentFormat.PPTX,
    DocumentFormat.XLSX,
    DocumentFormat.PAGES,
    DocumentFormat.NUMBERS,
    DocumentFormat.KEYNOTE,
}


def parse_document(data: bytes, filename: str, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
    """Parse one file; every refusal is a StrataError whose message starts with the file name."""
    check_size(len(data), filename, limits)
    if not data.strip():
        raise UnreadableDocument(f"{filename}: the file is empty", hint="add a document that contains text")
    fmt = detect_format(data, filename)
    if fmt in _ZIP_FORMATS:
        check_zip(data, filename, limits)
    try:
        return _dispatch(fmt, data, filename)
    except StrataError:
        raise
    except RecursionError as exc:  # deeply nested XML/PDF objects; refuse rather than crash
        raise UnreadableDocument(f"{filename}: the document is nested too deeply to read") from exc


def _dispatch(fmt: DocumentFormat, data: bytes, filename: str) -> ParsedDocument:
    if fmt is DocumentFormat.PDF:
        return pdf.parse(data, filename)
    if fmt is DocumentFormat.DOCX:
        return docx.parse(data, filename)
    if fmt is DocumentFormat.PPTX:
        return pptx.parse(data, filename)
    if fmt is DocumentFormat.XLSX:
        return xlsx.parse(data, filename)
    if fmt is DocumentFormat.CSV:
        return csv.parse(data, filename)
    if fmt is DocumentFormat.MD:
        return text.parse_md(data, filename)
    if fmt is DocumentFormat.HTML:
        return html.parse(data, filename)
    if fmt.is_iwork:
        return iwork.parse(data, filename, fmt)
    return text.parse_txt(data, filename)
