"""Tell a file's format from its bytes (magic numbers, zip members, text sniffing); the name breaks ties."""

from __future__ import annotations

import codecs
from pathlib import PurePath

from app.core.errors import UnreadableDocument, UnsupportedFormat
from knowledge_base.document import DocumentFormat
from knowledge_base.guards import read_zip_index

_PDF_MAGIC = b"%PDF-"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .doc/.xls/.ppt and encrypted OOXML
_BINARY_MAGICS: dict[bytes, str] = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x1f\x8b": "a gzip archive",
    b"7z\xbc\xaf": "a 7-Zip archive",
    b"Rar!": "a RAR archive",
    b"{\\rtf": "an RTF document",
    b"\x7fELF": "an executable",
    b"MZ": "an executable",
}
_OOXML_MARKERS = {
    "word/document.xml": DocumentFormat.DOCX,
    "ppt/presentation.xml": DocumentFormat.PPTX,
    "xl/workbook.xml": DocumentFormat.XLSX,
}
_IWORK_BY_SUFFIX = {
    ".pages": DocumentFormat.PAGES,
    ".numbers": DocumentFormat.NUMBERS,
    ".key": DocumentFormat.KEYNOTE,
}
_MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown", ".mkd"}
_CSV_SUFFIXES = {".csv", ".tsv"}
_HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
SUPPORTED_HINT = "supported: PDF, DOCX, PPTX, XLSX, CSV, TXT, MD, HTML, Pages, Numbers, Keynote"


def detect_format(data: bytes, filename: str) -> DocumentFormat:
    """The format of `data`; raises UnsupportedFormat naming the file when it is none we read."""
    suffix = PurePath(filename).suffix.lower()
    if data.startswith(_PDF_MAGIC):
        return DocumentFormat.PDF
    if data.startswith(_ZIP_MAGICS):
        # Before the lenient PDF check: a zip that stores a PDF uncompressed contains "%PDF-" early.
        return _detect_zip(data, filename, suffix)
    if _PDF_MAGIC in data[:1024]:
        # Some writers put junk (or a BOM) before the header; readers accept it within 1 KiB.
        return DocumentFormat.PDF
    if data.startswith(_OLE2_MAGIC):
        raise UnsupportedFormat(
            f"{filename}: a legacy Office file or a password-protected Office document",
            hint="open it in Office and save as .docx/.pptx/.xlsx without a password",
        )
    for magic, what in _BINARY_MAGICS.items():
        if data.startswith(magic):
            raise UnsupportedFormat(f"{filename}: {what} is not a document type we read", hint=SUPPORTED_HINT)
    if suffix in _IWORK_BY_SUFFIX:
        raise UnreadableDocument(
            f"{filename}: not a valid {suffix[1:]} package (it is not a zip archive)",
            hint="in the Apple app use File › Export To › PDF and add the PDF",
        )
    if not looks_like_text(data):
        raise UnsupportedFormat(f"{filename}: binary content of an unknown type", hint=SUPPORTED_HINT)
    return _detect_text(data, suffix)


def _detect_zip(data: bytes, filename: str, suffix: str) -> DocumentFormat:
    names = [info.filename for info in read_zip_index(data, filename)]
    name_set = set(names)
    for marker, fmt in _OOXML_MARKERS.items():
        if marker in name_set:
            return fmt
    if _is_iwork(names):
        # The package layout is the same for the three apps; the suffix says which one it is.
        return _IWORK_BY_SUFFIX.get(suffix, DocumentFormat.PAGES)
    if suffix in _IWORK_BY_SUFFIX:
        return _IWORK_BY_SUFFIX[suffix]
    if suffix in (".docx", ".pptx", ".xlsx"):
        raise UnreadableDocument(
            f"{filename}: corrupt {suffix[1:]} package (its main part is missing)",
            hint="re-save the file from the application that created it",
        )
    raise UnsupportedFormat(
        f"{filename}: a zip archive, not a document", hint="unpack it and add the files inside one by one"
    )


def _is_iwork(names: list[str]) -> bool:
    for name in names:
        lower = name.lower()
        if lower.startswith(("index/", "quicklook/")) or lower in ("index.xml", "index.apxl", "index.xml.gz"):
            return True
        if lower.endswith(".iwa"):
            return True
    return False


def looks_like_text(data: bytes) -> bool:
    """True when the bytes decode as text: a UTF BOM, or no NULs and mostly printable characters."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return True
    sample = data[:8192]
    if b"\x00" in sample:
        return False
    if not sample:
        return True
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the sample's end is still text.
        text = (
            sample.decode("latin-1") if exc.start < len(sample) - 4 else sample[: exc.start].decode("utf-8")
        )
    control = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    return control <= max(1, len(text) // 100)


def _detect_text(data: bytes, suffix: str) -> DocumentFormat:
    if suffix in _HTML_SUFFIXES:
        return DocumentFormat.HTML
    if suffix in _MARKDOWN_SUFFIXES:
        return DocumentFormat.MD
    if suffix in _CSV_SUFFIXES:
        return DocumentFormat.CSV
    head = decode_text(data[:4096]).lstrip().lower()
    if head.startswith(("<!doctype html", "<html")) or ("<body" in head and "</" in head):
        return DocumentFormat.HTML
    return DocumentFormat.TXT


def decode_text(data: bytes) -> str:
    """Decode by BOM, then UTF-8, then Windows-1252 (which accepts almost every byte), then Latin-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def text_encoding(data: bytes) -> str:
    """The codec `decode_text` would pick, found without decoding the whole file into one string."""
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    for encoding in ("utf-8", "cp1252"):
        if _decodes(data, encoding):
            return encoding
    return "latin-1"


def _decodes(data: bytes, encoding: str, slice_bytes: int = 1 << 20) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)()
    view = memoryview(data)
    try:
        for start in range(0, len(data), slice_bytes):
            decoder.decode(view[start : start + slice_bytes])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True
