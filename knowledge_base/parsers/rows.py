"""Tabular rows as retrievable text: with a header row, each row reads `Header: value | Header: value`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from knowledge_base.document import Section
from knowledge_base.parsers.base import clean

# Rows leave the parser in sections of about this many characters (a sheet may be several), so a
# million-row sheet is counted, chunked and refused at a limit while it is being read.
BLOCK_CHARS = 64_000


def row_sections(lines: Iterable[str], sheet: str | None = None) -> Iterator[Section]:
    """Rendered rows grouped into sections of about BLOCK_CHARS characters, in order."""
    block: list[str] = []
    size = 0
    for line in lines:
        block.append(line)
        size += len(line) + 1
        if size >= BLOCK_CHARS:
            yield Section(text=clean("\n".join(block)), sheet=sheet)
            block, size = [], 0
    if block:
        yield Section(text=clean("\n".join(block)), sheet=sheet)


def iter_rows_text(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """Render non-empty rows one line at a time; when the first one looks like a header, label every
    later cell with it. A chunk of table rows is only findable ("budget for Q3") if the column names
    travel with it."""
    header: list[str] | None = None
    first = True
    for raw in rows:
        cells = [_cell(value) for value in raw]
        if not any(cells):
            continue
        if first:
            first = False
            if _is_header(raw):
                header = cells
                yield " | ".join(c for c in cells if c)
                continue
        if header is None:
            yield " | ".join(c for c in cells if c)
            continue
        labelled = []
        for index, cell in enumerate(cells):
            if not cell:
                continue
            name = header[index] if index < len(header) and header[index] else ""
            labelled.append(f"{name}: {cell}" if name else cell)
        yield " | ".join(labelled)


def _is_header(raw: Sequence[Any]) -> bool:
    values = [v for v in raw if v is not None and str(v).strip()]
    return len(values) >= 2 and all(isinstance(v, str) and not _is_number(v) for v in values)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())
