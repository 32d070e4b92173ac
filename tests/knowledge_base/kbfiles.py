"""Generate real documents of every supported format with the libraries that write them (tests + bench)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

import docx
import openpyxl
from pptx import Presentation
from pptx.util import Inches
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas


def pdf_bytes(pages: Sequence[str], *, title: str | None = None, author: str | None = None) -> bytes:
    """A text PDF, one string per page, lines wrapped at ~90 characters."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    if title:
        pdf.setTitle(title)
    if author:
        pdf.setAuthor(author)
    for page in pages:
        text = pdf.beginText(40, 800)
        text.setFont("Helvetica", 10)
        for paragraph in page.split("\n"):
            words, line = paragraph.split(), ""
            for word in words:
                if len(line) + len(word) > 90:
                    text.textLine(line)
                    line = ""
                line = f"{line} {word}".strip()
            text.textLine(line)
        pdf.drawText(text)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def image_only_pdf_bytes(pages: int = 2) -> bytes:
    """A PDF whose pages carry only drawings (as a scan would): no text layer."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for _ in range(pages):
        pdf.rect(50, 50, 400, 600, fill=1)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def encrypted_pdf_bytes(
    text: str = "secret plans", password: str = "hunter2", owner_only: bool = False
) -> bytes:
    """A password-protected PDF; `owner_only` makes one that opens without a password."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes([text]))))
    writer.encrypt(user_password="" if owner_only else password, owner_password=password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(
    blocks: Sequence[tuple[str, str]] = (),
    *,
    table: Sequence[Sequence[str]] | None = None,
    title: str | None = None,
    author: str | None = None,
) -> bytes:
    """A Word file from (kind, text) blocks, kind = "h1" / "h2" / "p"; an optional table at the end."""
    document = docx.Document()
    for kind, text in blocks:
        if kind.startswith("h"):
            document.add_heading(text, level=int(kind[1:]))
        else:
            document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    if title:
        document.core_properties.title = title
    if author:
        document.core_properties.author = author
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_bytes(
    slides: Sequence[tuple[str, Sequence[str], str | None]],
    *,
    table_on_first: Sequence[Sequence[str]] | None = None,
    title: str | None = None,
) -> bytes:
    """A presentation from (title, bullets, notes) triples."""
    presentation = Presentation()
    layout = presentation.slide_layouts[1]  # title and content
    for number, (heading, bullets, notes) in enumerate(slides):
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = heading
        body = slide.placeholders[1].text_frame
        for index, bullet in enumerate(bullets):
            paragraph = body.paragraphs[0] if index == 0 else body.add_paragraph()
            paragraph.text = bullet
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
        if number == 0 and table_on_first:
            rows, cols = len(table_on_first), len(table_on_first[0])
            shape = slide.shapes.add_table(rows, cols, Inches(1), Inches(5), Inches(6), Inches(1))
            for r, row in enumerate(table_on_first):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = value
    if title:
        presentation.core_properties.title = title
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def xlsx_bytes(sheets: dict[str, Sequence[Sequence[object]]], *, title: str | None = None) -> bytes:
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    if title:
        workbook.properties.title = title
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def csv_bytes(rows: Sequence[Sequence[object]], delimiter: str = ",") -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter).writerows(rows)
    return out.getvalue().encode("utf-8")


def iwork_bytes(preview_pdf: bytes | None) -> bytes:
    """An iWork-style package: protobuf .iwa members plus, optionally, QuickLook/Preview.pdf."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("Index/Document.iwa", b"\x00\x01\x02 not readable protobuf")
        archive.writestr("Metadata/Properties.plist", b"<plist></plist>")
        archive.writestr("preview.jpg", b"\xff\xd8\xff\xe0 jpeg")
        if preview_pdf is not None:
            archive.writestr("QuickLook/Preview.pdf", preview_pdf)
    return out.getvalue()


def with_extra_members(package: bytes, members: dict[str, bytes], *, count: int = 0) -> bytes:
    """A copy of a zip package with extra members (a bomb) and `count` tiny filler entries."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(package)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dest,
    ):
        for info in source.infolist():
            dest.writestr(info, source.read(info.filename))
        for name, data in members.items():
            dest.writestr(name, data)
        for index in range(count):
            dest.writestr(f"customXml/filler{index}.xml", b"<a/>")
    return out.getvalue()


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path


LOREM = (
    "Strata keeps personal memory local. The knowledge base parses uploaded documents, splits them "
    "into overlapping chunks and indexes every chunk for hybrid search. "
)
