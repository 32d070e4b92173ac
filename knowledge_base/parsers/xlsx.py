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
    # Progress in rows: a workbook is often one huge sheet. The sheets' declared dimensions give the
    # total (0, unknown, when a writer left them out).
    rows = sum(_declared_rows(sheet) for sheet in workbook.worksheets)
    out = SectionStream(DocumentFormat.XLSX, iter(()), metadata, total=rows, unit="rows")
    out.empty_reason = "every sheet is empty"
    out.sections = _sections(workbook, filename, out)
    return out


def _sections(workbook: Any, filename: str, out: SectionStream) -> Iterator[Section]:
    try:
        for sheet in workbook.worksheets:
            try:
                rows = iter_rows_text(_counted(sheet.iter_rows(values_only=True), out))
                yield from row_sections(rows, sheet.title)
            except StrataError:
                raise
            except Exception as exc:
                raise corrupt(filename, f"{_WHAT} (sheet {sheet.title!r})", exc) from exc
    finally:
        workbook.close()


def _counted(rows: Iterator[Any], out: SectionStream) -> Iterator[Any]:
    for row in rows:
        out.done += 1
        yield row


def _declared_rows(sheet: Any) -> int:
    try:
        return int(sheet.max_row or 0)
    except (TypeError, ValueError):
        return 0
