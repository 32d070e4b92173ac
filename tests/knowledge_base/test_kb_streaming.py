"""Documents are read section by section: limits stop the parse part-way, errors found late lose
nothing already stored, a cancel while reading stores nothing, and the streamed text matches."""

from __future__ import annotations

import io
import threading
import tracemalloc
import zipfile

import kbfiles
import pytest
from kbstate import footprint

from app.core.errors import Cancelled, PayloadTooLarge, UnreadableDocument
from knowledge_base.guards import Limits
from knowledge_base.parsers.rows import BLOCK_CHARS
from knowledge_base.parsing import open_document, parse_document

MB = 1024 * 1024
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx_with_body(body: str) -> bytes:
    """A real python-docx package whose document.xml is replaced by `body` (inside w:body)."""
    xml = f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>{body}</w:body></w:document>'
    return replace_member(kbfiles.docx_bytes([("p", "x")]), "word/document.xml", xml.encode())


def replace_member(package: bytes, name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, data if info.filename == name else src.read(info))
    return out.getvalue()


def paragraphs(count: int, text: str = kbfiles.LOREM) -> str:
    return "".join(f"<w:p><w:r><w:t>{i}. {text}</w:t></w:r></w:p>" for i in range(count))


def test_a_large_docx_over_the_character_limit_is_refused_after_reading_a_fraction():
    # ~10 MB of document.xml: python-docx built the whole tree (~10x) before the count was known.
    data = docx_with_body(paragraphs(22_000))
    tracemalloc.start()
    try:
        with pytest.raises(PayloadTooLarge) as info:
            parse_document(data, "big.docx", Limits(max_extracted_chars=200_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert message.startswith("big.docx: this document has more than 200,000 characters, the limit")
    done, total = (float(n) for n in message.split("stopped reading at ")[1].split()[0:3:2])
    assert done < total / 10  # stopped well before the end of the part
    assert "kb.max_extracted_chars" in info.value.hint
    # The package's bytes, one block of the tree and the text read so far; no whole-part tree.
    assert peak - len(data) < 8 * MB, f"peak {peak / MB:.0f} MB"


def test_pdf_over_the_limit_says_at_which_page_it_stopped(make_services):
    services = make_services(max_extracted_chars=5_000)
    data = kbfiles.pdf_bytes([kbfiles.LOREM * 4] * 30)
    with pytest.raises(
        PayloadTooLarge, match=r"long.pdf: .* the limit \(stopped reading at \d of 30 pages\)"
    ):
        services.knowledge.add_bytes(data, "long.pdf")
    assert footprint(services).empty


def test_chunk_limit_is_found_while_reading_and_nothing_is_stored(make_services):
    services = make_services(max_chunks=5)
    kept = services.knowledge.add_bytes(b"An earlier document stays as it was.", "kept.txt")
    before = footprint(services)
    data = kbfiles.pptx_bytes([(f"Slide {i}", [kbfiles.LOREM] * 3, None) for i in range(20)])
    with pytest.raises(PayloadTooLarge, match=r"deck.pptx: this document splits into more than 5 chunks"):
        services.knowledge.add_bytes(data, "deck.pptx")
    assert footprint(services) == before
    assert services.knowledge.get(kept.id).content == "An earlier document stays as it was."


def test_a_docx_broken_half_way_is_refused_and_loses_nothing_already_stored(services):
    kept = services.knowledge.add_bytes(kbfiles.docx_bytes([("p", "Stored before.")]), "kept.docx")
    before = footprint(services)
    xml = f"<w:document {W}><w:body>{paragraphs(2_000)}".encode()
    broken = replace_member(kbfiles.docx_bytes([("p", "x")]), "word/document.xml", xml[: len(xml) * 2 // 3])
    with pytest.raises(UnreadableDocument) as info:
        services.knowledge.add_bytes(broken, "half.docx")
    assert str(info.value).startswith("half.docx: corrupt or unreadable Word document (")
    assert "re-save" in info.value.hint
    assert footprint(services) == before
    assert "Stored before." in services.knowledge.get(kept.id).content


def test_cancel_while_reading_stores_nothing(services):
    data = kbfiles.pdf_bytes([f"Page {i}. {kbfiles.LOREM}" for i in range(40)])
    cancel = threading.Event()
    pages: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "parse" and done:
            pages.append(done)
            if done == 3:
                cancel.set()

    with pytest.raises(Cancelled, match=r"r.pdf: adding was cancelled; nothing was stored"):
        services.knowledge.add_bytes(data, "r.pdf", progress=progress, cancel=cancel)
    assert pages == [1, 2, 3]  # the fourth page was never read
    assert footprint(services).empty


def test_progress_reports_pages_as_they_are_read(services):
    seen: list[tuple[str, int, int]] = []
    data = kbfiles.pdf_bytes([f"Page {i}. {kbfiles.LOREM}" for i in range(5)])
    services.knowledge.add_bytes(data, "p.pdf", progress=lambda *s: seen.append(s))
    parse = [s for s in seen if s[0] == "parse"]
    assert parse[0] == ("parse", 0, 5) and ("parse", 3, 5) in parse and parse[-1] == ("parse", 5, 5)
    assert [s[0] for s in seen].index("embed") > len(parse) - 1  # embedding starts after reading


def test_docx_stream_reads_links_tabs_breaks_fields_and_nested_tables():
    body = (
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Plan</w:t></w:r></w:p>'
        '<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r>'
        '<w:hyperlink r:id="rId9" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        "<w:r><w:t>the wiki</w:t></w:r></w:hyperlink>"
        "<w:r><w:tab/><w:t>now</w:t><w:br/><w:t>next line</w:t></w:r>"
        '<w:r><w:br w:type="page"/><w:t>same line</w:t></w:r>'
        "<w:ins><w:r><w:t> (added)</w:t></w:r></w:ins></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Owner</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>inner</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc></w:tr>"
        "<w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl>"
        "<w:sdt><w:sdtContent><w:p><w:r><w:t>In a content control</w:t></w:r></w:p></w:sdtContent></w:sdt>"
    )
    doc = parse_document(docx_with_body(body), "plan.docx")
    assert [s.heading for s in doc.sections] == ["Plan"]
    assert doc.sections[0].text.splitlines() == [
        "Plan",
        "See the wiki now",
        "next linesame line (added)",
        "Owner | inner",
        "In a content control",
    ]


def test_long_sheets_and_csv_files_stream_in_blocks_with_their_header():
    rows = [["Owner", "Task"]] + [[f"person{i}", f"task number {i} " + "x" * 60] for i in range(3_000)]
    for name, data in (
        ("big.csv", kbfiles.csv_bytes(rows)),
        ("big.xlsx", kbfiles.xlsx_bytes({"Tasks": rows})),
    ):
        stream = open_document(data, name)
        sections = list(stream.sections)
        assert len(sections) > 1 and all(len(s.text) < BLOCK_CHARS + 200 for s in sections)
        last = sections[-1].text.splitlines()[-1]
        assert last.startswith("Owner: person2999 | Task: task number 2999")  # header carried over
        doc = parse_document(data, name)
        assert doc.full_text().count("[Sheet Tasks]") == (1 if name.endswith("xlsx") else 0)
    assert parse_document(kbfiles.csv_bytes(rows), "big.csv").metadata == {"rows": 3_001, "columns": 2}


def test_csv_in_windows_1252_is_decoded_as_before():
    data = "name;city\nRené;Zürich\n".encode("cp1252")
    doc = parse_document(data, "old.csv")
    assert doc.sections[0].text == "name | city\nname: René | city: Zürich"


def test_the_limit_message_says_where_reading_stopped_even_without_a_known_total():
    from knowledge_base.document import DocumentFormat, SectionStream
    from knowledge_base.reading import over_chars

    known = SectionStream(DocumentFormat.PDF, iter(()), total=2_000, done=637, unit="pages")
    unknown = SectionStream(DocumentFormat.XLSX, iter(()), total=0, done=12_769, unit="rows")
    assert over_chars("a.pdf", 10, known).message.endswith("(stopped reading at 637 of 2,000 pages)")
    assert over_chars("b.xlsx", 10, unknown).message.endswith("(stopped reading after 12,769 rows)")
    in_bytes = SectionStream(DocumentFormat.DOCX, iter(()), total=60 * MB, done=5 * MB, unit="bytes of XML")
    assert over_chars("c.docx", 10, in_bytes).message.endswith("(stopped reading at 5.0 of 60.0 MB of XML)")


def test_pptx_slides_follow_the_presentation_order_and_groups_are_read():
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for title in ("First", "Second", "Third"):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
        slide.shapes.title.text = title
    group = deck.slides[1].shapes.add_group_shape()
    box = group.shapes.add_textbox(Inches(1), Inches(2), Inches(3), Inches(1))
    box.text_frame.text = "Inside a group"
    # Move the third slide to the front: the zip still names it slide3.xml.
    ids = deck.slides._sldIdLst
    third = list(ids)[2]
    ids.remove(third)
    ids.insert(0, third)
    out = io.BytesIO()
    deck.save(out)
    doc = parse_document(out.getvalue(), "moved.pptx")
    assert [(s.slide, s.heading) for s in doc.sections] == [(1, "Third"), (2, "First"), (3, "Second")]
    assert doc.sections[2].text == "Second\nInside a group"
