"""Format detection reads content first; the name only breaks ties between text kinds."""

from __future__ import annotations

import io
import zipfile

import kbfiles
import pytest

from app.core.errors import UnreadableDocument, UnsupportedFormat
from knowledge_base.detect import decode_text, detect_format, looks_like_text
from knowledge_base.document import DocumentFormat


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: kbfiles.pdf_bytes(["hello"]), DocumentFormat.PDF),
        (lambda: kbfiles.docx_bytes([("p", "hello")]), DocumentFormat.DOCX),
        (lambda: kbfiles.pptx_bytes([("t", ["b"], None)]), DocumentFormat.PPTX),
        (lambda: kbfiles.xlsx_bytes({"S": [["a", "b"]]}), DocumentFormat.XLSX),
    ],
)
def test_binary_formats_are_detected_whatever_the_name(make, expected):
    data = make()
    assert detect_format(data, "misnamed.txt") is expected
    assert detect_format(data, "no_extension") is expected


def test_pdf_header_after_leading_junk_is_still_pdf():
    assert detect_format(b"\n\n" + kbfiles.pdf_bytes(["x"]), "a.pdf") is DocumentFormat.PDF


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.pages", DocumentFormat.PAGES),
        ("a.numbers", DocumentFormat.NUMBERS),
        ("a.key", DocumentFormat.KEYNOTE),
        ("a.zip", DocumentFormat.PAGES),
    ],
)
def test_iwork_packages_by_layout_then_suffix(name, expected):
    assert detect_format(kbfiles.iwork_bytes(None), name) is expected


def test_text_kinds_use_suffix_then_content():
    assert detect_format(b"# Title\ntext", "notes.md") is DocumentFormat.MD
    assert detect_format(b"a,b\n1,2\n", "t.csv") is DocumentFormat.CSV
    assert detect_format(b"a\tb\n1\t2\n", "t.tsv") is DocumentFormat.CSV
    assert detect_format(b"<p>x</p>", "page.htm") is DocumentFormat.HTML
    assert detect_format(b"<!DOCTYPE html><html><body>x</body></html>", "saved") is DocumentFormat.HTML
    assert detect_format(b"  <html><body><p>x</p></body></html>", "x.txt") is DocumentFormat.HTML
    assert detect_format(b"just words", "readme") is DocumentFormat.TXT
    assert detect_format("caf\u00e9 \u4e2d\u6587".encode(), "x.txt") is DocumentFormat.TXT


def test_text_disguised_as_pdf_is_read_as_text():
    assert detect_format(b"plain words only", "fake.pdf") is DocumentFormat.TXT


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "PNG image"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "JPEG image"),
        (b"\x1f\x8b\x08" + b"\x00" * 20, "gzip"),
        (b"\x7fELF" + b"\x00" * 20, "executable"),
        (bytes(range(256)) * 4, "binary content"),
    ],
)
def test_unsupported_binaries_name_the_file(data, needle):
    with pytest.raises(UnsupportedFormat) as info:
        detect_format(data, "thing.pdf")
    assert "thing.pdf" in str(info.value)
    assert needle in str(info.value)


def test_legacy_or_encrypted_office_file_is_explained():
    with pytest.raises(UnsupportedFormat, match=r"legacy Office file or a password-protected"):
        detect_format(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "old.doc")


def test_plain_zip_is_refused_with_advice():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", "x")
    with pytest.raises(UnsupportedFormat, match=r"unpack it"):
        detect_format(out.getvalue(), "bundle.zip")


def test_corrupt_zip_is_unreadable():
    data = kbfiles.docx_bytes([("p", "hello")])
    with pytest.raises(UnreadableDocument, match=r"broken.docx: corrupt zip"):
        detect_format(data[:200], "broken.docx")


def test_zip_named_docx_without_main_part_is_corrupt():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    with pytest.raises(UnreadableDocument, match=r"main part is missing"):
        detect_format(out.getvalue(), "x.docx")


def test_iwork_suffix_on_non_zip_says_export_to_pdf():
    with pytest.raises(UnreadableDocument, match=r"Export To"):
        detect_format(b"\x00\x01binary", "deck.key")


def test_looks_like_text_and_decoding():
    assert looks_like_text(b"")
    assert looks_like_text("\ufeffbom".encode("utf-8-sig"))
    assert looks_like_text("hi".encode("utf-16"))
    assert not looks_like_text(b"a\x00b")
    # A UTF-8 character cut by the 8 KiB sample is still text.
    assert looks_like_text(("x" * 8191 + "\u00e9").encode())
    assert decode_text("hé".encode("utf-16")) == "hé"
    assert decode_text("café".encode("cp1252")) == "café"
    assert decode_text("abc".encode("utf-8-sig")) == "abc"
    assert decode_text(b"\x81\x8d") == "\x81\x8d"  # undefined in cp1252: falls back to latin-1


def test_zip_storing_a_pdf_uncompressed_is_still_a_zip():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("QuickLook/Preview.pdf", kbfiles.pdf_bytes(["x"]))
    assert detect_format(out.getvalue(), "a.numbers") is DocumentFormat.NUMBERS
