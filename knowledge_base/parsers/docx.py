"""DOCX via python-docx: paragraphs and tables in body order, headings start new sections."""

from __future__ import annotations

import io

import docx
from docx.document import Document as DocxDocument
from docx.table import Table
from docx.text.paragraph import Paragraph

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean, corrupt


def parse(data: bytes, filename: str) -> ParsedDocument:
    try:
        document = docx.Document(io.BytesIO(data))
        sections = _sections(document)
        props = document.core_properties
        metadata = {
            "title": props.title,
            "author": props.author,
            "subject": props.subject,
            "created": props.created,
        }
    except StrataError:
        raise
    except Exception as exc:  # python-docx/lxml raise KeyError, XMLSyntaxError…; convert at the seam
        raise corrupt(filename, "Word document", exc) from exc
    return build(DocumentFormat.DOCX, filename, sections, metadata)


def _sections(document: DocxDocument) -> list[Section]:
    sections: list[Section] = []
    heading: str | None = None
    lines: list[str] = []

    def flush() -> None:
        text = clean("\n".join(lines))
        if text:
            sections.append(Section(text=text, heading=heading))
        lines.clear()

    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            if not text:
                continue
            style = (block.style.name if block.style is not None else "") or ""
            if style.lower().startswith(("heading", "title")):
                # A heading closes the previous section so chunks keep the heading they belong to.
                flush()
                heading = text
            lines.append(text)
        elif isinstance(block, Table):
            lines.extend(table_rows(block))
    flush()
    return sections


def table_rows(table: Table) -> list[str]:
    """Each row as `cell | cell | cell`, merged cells once, empty rows dropped."""
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            # Merged cells repeat the same object across the span; keep one copy.
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return rows
