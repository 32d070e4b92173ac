"""DOCX streamed from word/document.xml: paragraphs and tables in body order, headings start sections.

python-docx builds the whole document tree (about ten times the XML in memory: a 157 MB part took
2.1 GB). Here the main part is read with `iterparse` as it is inflated, each top-level paragraph or
table is turned into text and freed, and a section is handed on at every heading or every
`BLOCK_CHARS` characters, so the reader can count and stop long before the end of a huge file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, Section, SectionStream
from knowledge_base.parsers import ooxml
from knowledge_base.parsers.base import clean, corrupt

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_P, _TBL, _TR, _TC, _R = f"{W}p", f"{W}tbl", f"{W}tr", f"{W}tc", f"{W}r"
# Containers whose runs are part of the paragraph's text (links, tracked insertions, fields, controls).
_RUN_CONTAINERS = {
    f"{W}{n}" for n in ("hyperlink", "ins", "smartTag", "fldSimple", "sdt", "sdtContent", "customXml")
}
_RUN_TEXT = {f"{W}t": None, f"{W}tab": "\t", f"{W}ptab": "\t", f"{W}cr": "\n", f"{W}noBreakHyphen": "-"}
MAIN_PART = "word/document.xml"
# A long run of text without headings still leaves the parser in pieces of about this size.
BLOCK_CHARS = 64_000
_WHAT = "Word document"


def stream(data: bytes, filename: str) -> SectionStream:
    try:
        archive = ooxml.open_package(data)
        main = archive.getinfo(MAIN_PART)
        styles = _paragraph_styles(archive)
        metadata = ooxml.core_properties(archive)
    except StrataError:
        raise
    except Exception as exc:  # zipfile, lxml: KeyError, XMLSyntaxError, zlib.error…; convert at the seam
        raise corrupt(filename, _WHAT, exc) from exc
    out = SectionStream(DocumentFormat.DOCX, iter(()), metadata, total=main.file_size, unit="bytes of XML")
    out.sections = _sections(archive, main, styles, filename, out)
    return out


def _sections(
    archive: zipfile.ZipFile, main: zipfile.ZipInfo, styles: dict[str, str], filename: str, out: SectionStream
) -> Iterator[Section]:
    heading: str | None = None
    lines: list[str] = []
    size = 0

    def flush() -> Section | None:
        nonlocal size
        text = clean("\n".join(lines))
        lines.clear()
        size = 0
        return Section(text=text, heading=heading) if text else None

    try:
        with archive, archive.open(main) as raw:
            source = ooxml.CountingReader(raw)
            for block in _blocks(source):
                out.done = source.count
                if block.tag == _P:
                    text = paragraph_text(block).strip()
                    if text and _is_heading(block, styles):
                        # A heading closes the previous section so chunks keep the heading they belong to.
                        if (section := flush()) is not None:
                            yield section
                        heading = " ".join(text.split())
                    new = [text] if text else []
                else:
                    new = table_rows(block)
                ooxml.forget(block)
                lines.extend(new)
                size += sum(len(line) for line in new)
                if size >= BLOCK_CHARS and (section := flush()) is not None:
                    yield section
            out.done = source.count
    except StrataError:
        raise
    except Exception as exc:
        raise corrupt(filename, _WHAT, exc) from exc
    if (section := flush()) is not None:
        yield section


def _blocks(source: Any) -> Iterator[Any]:
    """The body's top-level paragraphs and tables, each complete; nested ones stay inside theirs."""
    depth = 0
    for event, element in ooxml.iterparse(source):
        if element.tag not in (_P, _TBL):
            continue
        if event == "start":
            depth += 1
            continue
        depth -= 1
        if depth == 0:
            yield element


def paragraph_text(paragraph: Any) -> str:
    """What Word shows of a paragraph: its runs, including links and fields; text boxes and
    drawings are skipped (python-docx did the same)."""
    parts: list[str] = []
    _collect_runs(paragraph, parts)
    return "".join(parts)


def _collect_runs(element: Any, parts: list[str]) -> None:
    for child in element:
        tag = child.tag
        if tag == _R:
            for item in child:
                if item.tag in _RUN_TEXT:
                    fixed = _RUN_TEXT[item.tag]
                    parts.append((item.text or "") if fixed is None else fixed)
                elif item.tag == f"{W}br" and item.get(f"{W}type") in (None, "textWrapping"):
                    parts.append("\n")  # page and column breaks are layout, not text
        elif tag in _RUN_CONTAINERS:
            _collect_runs(child, parts)


def table_rows(table: Any) -> list[str]:
    """Each row as `cell | cell | cell`, repeated neighbours once, empty rows dropped."""
    rows: list[str] = []
    for row in table.iterchildren(_TR):
        cells: list[str] = []
        for cell in row.iterchildren(_TC):
            text = " ".join(_cell_text(cell).split())
            # A merged span may repeat the same text across cells; keep one copy.
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return rows


def _cell_text(cell: Any) -> str:
    parts: list[str] = []
    for child in cell:
        if child.tag == _P:
            parts.append(paragraph_text(child))
        elif child.tag == _TBL:
            parts.extend(table_rows(child))  # a table inside a cell reads as part of the cell
    return "\n".join(parts)


def _is_heading(paragraph: Any, styles: dict[str, str]) -> bool:
    style_id = paragraph.find(f"{W}pPr/{W}pStyle")
    name = styles.get(style_id.get(f"{W}val", "") if style_id is not None else "", "")
    if style_id is None:
        name = styles.get("", "")  # the document's default paragraph style
    return name.lower().startswith(("heading", "title"))


def _paragraph_styles(archive: zipfile.ZipFile) -> dict[str, str]:
    """Paragraph style id → name ("Heading1" → "heading 1"); "" maps the default style's name."""
    root = ooxml.parse_part(archive, "word/styles.xml")
    names: dict[str, str] = {}
    if root is None:
        return names
    for style in root.iterchildren(f"{W}style"):
        if style.get(f"{W}type") != "paragraph":
            continue
        name_element = style.find(f"{W}name")
        name = name_element.get(f"{W}val", "") if name_element is not None else ""
        names[style.get(f"{W}styleId", "")] = name
        if style.get(f"{W}default") in ("1", "true", "on"):
            names[""] = name
    return names
