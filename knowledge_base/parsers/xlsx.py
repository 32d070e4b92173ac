"""XLSX via openpyxl (read-only, cached values): one section per sheet, rows as text."""

from __future__ import annotations

import io
from typing import Any

import openpyxl

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean, corrupt
from knowledge_base.parsers.rows import render_rows


def parse(data: bytes, filename: str) -> ParsedDocument:
    try:
        # data_only: formulas read as their last computed value, which is what a reader sees.
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            sections = [
                Section(
                    text=clean("\n".join(render_rows(sheet.iter_rows(values_only=True)))), sheet=sheet.title
                )
                for sheet in workbook.worksheets
            ]
            props = workbook.properties
            metadata: dict[str, Any] = {
                "title": props.title,
                "author": props.creator,
                "subject": props.subject,
                "created": props.created,
                "sheets": len(sections),
                "sheetNames": [s.sheet for s in sections],
            }
        finally:
            workbook.close()
    except StrataError:
        raise
    except Exception as exc:  # openpyxl raises KeyError, InvalidFileException…; convert at the seam
        raise corrupt(filename, "Excel workbook", exc) from exc
    return build(DocumentFormat.XLSX, filename, sections, metadata, empty_reason="every sheet is empty")
