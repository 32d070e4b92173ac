"""PPTX slide by slide: one section per slide (title as heading), text frames, tables, groups, notes.

python-pptx loads every part of the package (all slides' trees, every image's bytes) when it opens
a file; here only the presentation's slide list is read up front, then each slide's XML, and its
notes, are parsed, turned into text and dropped before the next.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, Section, SectionStream
from knowledge_base.parsers import ooxml
from knowledge_base.parsers.base import clean, corrupt

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
MAIN_PART = "ppt/presentation.xml"
_TITLE_TYPES = {"title", "ctrTitle", "vertTitle"}
_WHAT = "PowerPoint presentation"


def stream(data: bytes, filename: str) -> SectionStream:
    try:
        archive = ooxml.open_package(data)
        slides = _slide_parts(archive)
        metadata: dict[str, Any] = {**ooxml.core_properties(archive), "slides": len(slides)}
    except StrataError:
        raise
    except Exception as exc:  # zipfile, lxml: KeyError, XMLSyntaxError, zlib.error…; convert at the seam
        raise corrupt(filename, _WHAT, exc) from exc
    out = SectionStream(DocumentFormat.PPTX, iter(()), metadata, total=len(slides), unit="slides")
    out.sections = _sections(archive, slides, filename, out)
    return out


def _slide_parts(archive: zipfile.ZipFile) -> list[str]:
    """The slides' part names in presentation order (the order of sldIdLst, not of the zip)."""
    root = ooxml.parse_part(archive, MAIN_PART)
    if root is None:
        raise KeyError(f"no part named {MAIN_PART!r} in the package")
    rels = ooxml.relationships(archive, MAIN_PART)
    parts: list[str] = []
    for slide_id in root.iterfind(f"{P}sldIdLst/{P}sldId"):
        kind, target = rels.get(slide_id.get(f"{R}id", ""), ("", ""))
        if kind == "slide":
            parts.append(target)
    return parts


def _sections(
    archive: zipfile.ZipFile, slides: list[str], filename: str, out: SectionStream
) -> Iterator[Section]:
    with archive:
        for number, part in enumerate(slides, start=1):
            try:
                section = _slide(archive, part, number)
            except StrataError:
                raise
            except Exception as exc:
                raise corrupt(filename, f"{_WHAT} (slide {number})", exc) from exc
            out.done = number
            yield section


def _slide(archive: zipfile.ZipFile, part: str, number: int) -> Section:
    root = ooxml.parse_part(archive, part)
    if root is None:
        raise KeyError(f"slide part {part!r} is missing")
    tree = root.find(f"{P}cSld/{P}spTree")
    title = ""
    lines: list[str] = []
    if tree is not None:
        title = _title(tree)
        lines.extend(_shape_lines(tree))
    notes = _notes(archive, part)
    if notes:
        # Speaker notes often hold the actual argument of a slide; keep them, labelled.
        lines.append(f"Notes: {notes}")
    return Section(text=clean("\n".join(lines)), slide=number, heading=title or None)


def _title(tree: Any) -> str:
    for shape in tree.iter(f"{P}sp"):
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if placeholder is not None and placeholder.get("type") in _TITLE_TYPES:
            return " ".join(_frame_text(shape).split())
    return ""


def _shape_lines(tree: Any) -> Iterator[str]:
    """Text in the slide's shape order: text frames by paragraph, tables by row, groups recursed."""
    for shape in tree:
        tag = shape.tag
        if tag == f"{P}grpSp":
            yield from _shape_lines(shape)
        elif tag == f"{P}graphicFrame":
            for table in shape.iter(f"{A}tbl"):
                for row in table.iterchildren(f"{A}tr"):
                    cells = [" ".join(_frame_text(cell).split()) for cell in row.iterchildren(f"{A}tc")]
                    if any(cells):
                        yield " | ".join(c for c in cells if c)
        elif tag == f"{P}sp":
            body = shape.find(f"{P}txBody")
            if body is not None:
                for paragraph in body.iterchildren(f"{A}p"):
                    text = _paragraph_text(paragraph).strip()
                    if text:
                        yield text


def _frame_text(shape: Any) -> str:
    body = shape.find(f"{P}txBody")
    if body is None:
        body = shape.find(f"{A}txBody")  # table cells
    if body is None:
        return ""
    return "\n".join(_paragraph_text(p) for p in body.iterchildren(f"{A}p"))


def _paragraph_text(paragraph: Any) -> str:
    parts: list[str] = []
    for child in paragraph:
        if child.tag in (f"{A}r", f"{A}fld"):
            parts.append(child.findtext(f"{A}t") or "")
        elif child.tag == f"{A}br":
            parts.append("\n")
    return "".join(parts)


def _notes(archive: zipfile.ZipFile, slide_part: str) -> str:
    for kind, target in ooxml.relationships(archive, slide_part).values():
        if kind != "notesSlide":
            continue
        root = ooxml.parse_part(archive, target)
        if root is None:
            return ""
        for shape in root.iter(f"{P}sp"):
            placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
            if placeholder is not None and placeholder.get("type") == "body":
                return _frame_text(shape).strip()
    return ""
