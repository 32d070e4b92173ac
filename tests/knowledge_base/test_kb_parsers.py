"""Every parser on real files generated with the library that writes the format, plus its failure modes."""

from __future__ import annotations

import datetime as dt

import kbfiles
import pytest

from app.core.errors import PayloadTooLarge, UnreadableDocument, UnsupportedFormat
from knowledge_base.document import DocumentFormat
from knowledge_base.guards import Limits
from knowledge_base.parsing import parse_document


def test_pdf_pages_and_metadata():
    data = kbfiles.pdf_bytes(["Alpha page one text", "Beta page two text"], title="Plan", author="Ada")
    doc = parse_document(data, "plan.pdf")
    assert doc.format is DocumentFormat.PDF
    assert doc.content_type == "application/pdf"
    assert [s.page for s in doc.sections] == [1, 2]
    assert "Alpha page one" in doc.sections[0].text and "Beta page two" in doc.sections[1].text
    assert doc.metadata["title"] == "Plan" and doc.metadata["author"] == "Ada"
    assert doc.metadata["pages"] == 2
    assert "[Page 2]\nBeta page two text" in doc.full_text()


def test_pdf_blank_page_is_skipped_but_counted():
    data = kbfiles.pdf_bytes(["first", "", "third"])
    doc = parse_document(data, "gaps.pdf")
    assert [s.page for s in doc.sections] == [1, 3]
    assert doc.metadata["pages"] == 3


def test_encrypted_pdf_is_refused_clearly():
    with pytest.raises(UnreadableDocument) as info:
        parse_document(kbfiles.encrypted_pdf_bytes(), "locked.pdf")
    assert str(info.value).startswith("locked.pdf: the PDF is encrypted with a password")
    assert "remove the password" in str(info.value)


def test_owner_password_only_pdf_opens():
    doc = parse_document(kbfiles.encrypted_pdf_bytes("open sesame", owner_only=True), "rights.pdf")
    assert "open sesame" in doc.full_text()


def test_image_only_pdf_has_no_extractable_text():
    with pytest.raises(
        UnreadableDocument, match=r"scan.pdf: no extractable text \(a scanned or image-only PDF\?\)"
    ):
        parse_document(kbfiles.image_only_pdf_bytes(), "scan.pdf")


@pytest.mark.parametrize("cut", [30, 400, -200])
def test_corrupt_pdf(cut):
    data = kbfiles.pdf_bytes(["some text here"] * 3)
    broken = data[:cut] if cut > 0 else data[: cut // 2] + b"\x00garbage" * 40
    with pytest.raises(UnreadableDocument, match=r"^bad.pdf: "):
        parse_document(broken, "bad.pdf")


def test_docx_headings_paragraphs_tables_metadata():
    data = kbfiles.docx_bytes(
        [("h1", "Roadmap"), ("p", "We ship the importer first."), ("h2", "Risks"), ("p", "Budget is tight.")],
        table=[["Quarter", "Goal"], ["Q3", "Launch beta"]],
        title="Roadmap 2026",
        author="Grace",
    )
    doc = parse_document(data, "roadmap.docx")
    assert doc.format is DocumentFormat.DOCX
    assert [s.heading for s in doc.sections] == ["Roadmap", "Risks"]
    assert doc.sections[0].text == "Roadmap\nWe ship the importer first."
    assert "Quarter | Goal\nQ3 | Launch beta" in doc.sections[1].text
    assert doc.metadata["title"] == "Roadmap 2026" and doc.metadata["author"] == "Grace"


def test_docx_without_text_is_empty():
    with pytest.raises(UnreadableDocument, match=r"blank.docx: it contains no text"):
        parse_document(kbfiles.docx_bytes([]), "blank.docx")


def test_corrupt_docx_part():
    data = kbfiles.with_extra_members(kbfiles.docx_bytes([("p", "x")]), {})
    # Replace the main part with broken XML.
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = b"<w:document><unclosed" if info.filename == "word/document.xml" else src.read(info)
            dst.writestr(info.filename, body)
    with pytest.raises(UnreadableDocument, match=r"^broken.docx: corrupt or unreadable Word document"):
        parse_document(out.getvalue(), "broken.docx")


def test_pptx_slides_titles_tables_notes():
    data = kbfiles.pptx_bytes(
        [("Intro", ["Why memory matters", "Local first"], "Say hello slowly"), ("Plan", ["Phase one"], None)],
        table_on_first=[["Metric", "Target"], ["Latency", "50 ms"]],
        title="Deck",
    )
    doc = parse_document(data, "deck.pptx")
    assert doc.format is DocumentFormat.PPTX
    assert [(s.slide, s.heading) for s in doc.sections] == [(1, "Intro"), (2, "Plan")]
    first = doc.sections[0].text
    assert "Why memory matters" in first and "Metric | Target" in first and "Latency | 50 ms" in first
    assert first.endswith("Notes: Say hello slowly")
    assert doc.metadata["slides"] == 2 and doc.metadata["title"] == "Deck"
    assert "[Slide 2]\nPlan\nPhase one" in doc.full_text()


def test_xlsx_sheets_rows_with_headers():
    data = kbfiles.xlsx_bytes(
        {
            "Budget": [
                ["Item", "Amount", "Due"],
                ["Laptops", 1200.0, dt.datetime(2026, 3, 1)],
                [None, None, None],
                ["Rent", 900, None],
            ],
            "Empty": [],
            "Raw": [[1, 2], [3, True]],
        },
        title="Finance",
    )
    doc = parse_document(data, "money.xlsx")
    assert doc.format is DocumentFormat.XLSX
    assert [s.sheet for s in doc.sections] == ["Budget", "Raw"]
    assert doc.sections[0].text.splitlines() == [
        "Item | Amount | Due",
        "Item: Laptops | Amount: 1200 | Due: 2026-03-01",
        "Item: Rent | Amount: 900",
    ]
    assert doc.sections[1].text.splitlines() == ["1 | 2", "3 | TRUE"]
    assert doc.metadata["sheets"] == 3 and doc.metadata["sheetNames"] == ["Budget", "Empty", "Raw"]
    assert doc.metadata["title"] == "Finance"


def test_empty_workbook():
    with pytest.raises(UnreadableDocument, match=r"none.xlsx: every sheet is empty"):
        parse_document(kbfiles.xlsx_bytes({"A": [], "B": [[None]]}), "none.xlsx")


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_csv_rows_with_headers(delimiter):
    data = kbfiles.csv_bytes([["name", "city"], ["Ada", "London"], ["Linus", "Helsinki"]], delimiter)
    doc = parse_document(data, "people.csv")
    assert doc.format is DocumentFormat.CSV
    assert doc.sections[0].text.splitlines() == [
        "name | city",
        "name: Ada | city: London",
        "name: Linus | city: Helsinki",
    ]
    assert doc.metadata == {"rows": 3, "columns": 2}


def test_single_column_csv_falls_back():
    doc = parse_document(b"only\nvalues\n", "one.csv")
    assert doc.sections[0].text == "only\nvalues"


def test_txt_and_encodings():
    doc = parse_document("Héllo wörld\r\n\r\n\r\n\r\nsecond   para".encode("cp1252"), "old.txt")
    assert doc.format is DocumentFormat.TXT
    assert doc.sections[0].text == "Héllo wörld\n\nsecond para"
    cjk = parse_document("记忆 本地优先".encode(), "zh.txt")
    assert cjk.sections[0].text == "记忆 本地优先"


def test_markdown_headings_become_sections():
    data = b"# Guide\nintro\n## Install\n### Linux\napt install\n```\n# not a heading\n```\n## Use\nrun it\n"
    doc = parse_document(data, "guide.md")
    assert doc.format is DocumentFormat.MD
    assert [s.heading for s in doc.sections] == [
        "Guide",
        "Guide > Install",
        "Guide > Install > Linux",
        "Guide > Use",
    ]
    assert "# not a heading" in doc.sections[2].text
    assert doc.metadata["title"] == "Guide"


def test_html_visible_text_headings_tables():
    data = b"""<!doctype html><html><head><title>Team page</title><meta name="author" content="Bo">
    <style>p{color:red}</style><script>var secret = 1;</script></head>
    <body><p>Welcome &amp; hello</p><h2>Members</h2><table><tr><th>Name</th><th>Role</th></tr>
    <tr><td>Ada</td><td>Lead</td></tr></table><h2>Contact</h2><p>Mail us<br>today</p></body></html>"""
    doc = parse_document(data, "team.html")
    assert doc.format is DocumentFormat.HTML
    assert doc.metadata == {"title": "Team page", "author": "Bo"}
    assert [s.heading for s in doc.sections] == [None, "Members", "Contact"]
    assert doc.sections[0].text == "Welcome & hello"
    assert "Name | Role" in doc.sections[1].text and "Ada | Lead" in doc.sections[1].text
    assert doc.sections[2].text == "Contact\n\nMail us\ntoday"
    assert "secret" not in doc.full_text() and "color" not in doc.full_text()


def test_html_with_only_markup_is_empty():
    with pytest.raises(UnreadableDocument, match=r"e.html: it contains no text"):
        parse_document(b"<html><body><script>x()</script></body></html>", "e.html")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.pages", DocumentFormat.PAGES),
        ("b.numbers", DocumentFormat.NUMBERS),
        ("c.key", DocumentFormat.KEYNOTE),
    ],
)
def test_iwork_with_preview_pdf(name, fmt):
    data = kbfiles.iwork_bytes(kbfiles.pdf_bytes(["Quarterly review notes"], title="Review"))
    doc = parse_document(data, name)
    assert doc.format is fmt
    assert "Quarterly review notes" in doc.full_text()
    assert doc.metadata["extractedFrom"] == "embedded preview PDF"
    assert doc.metadata["title"] == "Review"


def test_iwork_without_preview_says_export_to_pdf():
    with pytest.raises(UnsupportedFormat) as info:
        parse_document(kbfiles.iwork_bytes(None), "talk.key")
    message = str(info.value)
    assert message.startswith("talk.key: this Keynote file has no embedded PDF preview")
    assert "File › Export To › PDF" in message


@pytest.mark.parametrize("data", [b"", b"   \n\t  "])
def test_empty_files(data):
    with pytest.raises(UnreadableDocument, match=r"nothing.txt: the file is empty"):
        parse_document(data, "nothing.txt")


def test_size_limit_applies_before_parsing():
    with pytest.raises(PayloadTooLarge, match=r"^big.txt: "):
        parse_document(b"x" * 2048, "big.txt", Limits(max_file_bytes=1024))


def test_zip_bomb_docx_is_refused_before_parsing():
    bomb = kbfiles.with_extra_members(kbfiles.docx_bytes([("p", "x")]), {"word/zero.bin": b"\0" * (4 << 20)})
    with pytest.raises(PayloadTooLarge, match=r"^bomb.docx: .*zip bomb"):
        parse_document(bomb, "bomb.docx")
