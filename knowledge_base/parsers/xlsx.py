"""XLSX via openpyxl in read-only mode (cached values): sheets in order, rows streamed in blocks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import openpyxl

from app.core.errors import StrataError
from knowledge_base.document import DocumentFormat, Section, SectionStream
from knowledge_base.parsers.base import corrupt
from knowledge_base.parsers.rows import iter_rows_text, row_sections

_WHAT = "Excel workbook"


def stream(data: bytes, filename: str) -> SectionStream:
    try:
        # data_only: formulas read as their last computed value, which is what a reader sees.
        # read_only: rows are parsed as they are asked for, never the whole sheet as cells.
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        props = workbook.properties
        names = [sheet.title for sheet in workbook.worksheets]
        metadata: dict[str, Any] = {
            "title": props.title,
            "author": props.creator,
            "subject": props.subject,
            "created": props.created,
            "sheets": len(names),
            "sheetNames": names,
        }
    except StrataError:
        raise
    except Exception as exc:  # openpyxl raises KeyError, InvalidFileException…; convert at the seam
        raise corrupt(filename, _WHAT, exc) from exc
    out = SectionStream(DocumentFormat.XLSX, iter(()), metadata, total=len(names), unit="sheets")
    out.empty_reason = "every sheet is empty"
    out.sections = _sections(workbook, filename, out)
    return out


def _sections(workbook: Any, filename: str, out: SectionStream) -> Iterator[Section]:
    try:
        for number, sheet in enumerate(workbook.worksheets, start=1):
            try:
                rows = iter_rows_text(sheet.iter_rows(values_only=True))
                yield from row_sections(rows, sheet.title)
            except StrataError:
                raise
            except Exception as exc:
                raise corrupt(filename, f"{_WHAT} (sheet {sheet.title!r})", exc) from exc
            out.done = number
    finally:
        workbook.close()
