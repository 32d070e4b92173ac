"""PPTX via python-pptx: one section per slide (title as heading), text frames, tables, groups, notes."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean, corrupt


def parse(data: bytes, filename: str) -> ParsedDocument:
    try:
        presentation = Presentation(io.BytesIO(data))
        sections = [_slide(slide, number) for number, slide in enumerate(presentation.slides, start=1)]
        props = presentation.core_properties
        metadata: dict[str, Any] = {
            "title": props.title,
            "author": props.author,
            "subject": props.subject,
            "created": props.created,
            "slides": len(sections),
        }
    except StrataError:
        raise
    except Exception as exc:  # python-pptx/lxml raise KeyError, XMLSyntaxError…; convert at the seam
        raise corrupt(filename, "PowerPoint presentation", exc) from exc
    return build(DocumentFormat.PPTX, filename, sections, metadata)


def _slide(slide: Any, number: int) -> Section:
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    lines = list(_shape_lines(slide.shapes))
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        notes_text = notes.text.strip() if notes is not None else ""
        if notes_text:
            # Speaker notes often hold the actual argument of a slide; keep them, labelled.
            lines.append(f"Notes: {notes_text}")
    return Section(text=clean("\n".join(lines)), slide=number, heading=title or None)


def _shape_lines(shapes: Iterable[Any]) -> Iterator[str]:
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_lines(shape.shapes)
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                if any(cells):
                    yield " | ".join(c for c in cells if c)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            for paragraph in shape.text_frame.paragraphs:
                text = paragraph.text.strip()
                if text:
                    yield text
