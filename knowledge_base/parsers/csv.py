"""CSV/TSV: delimiter sniffed on the head, rows decoded and rendered with their header names as read."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from app.core.errors import StrataError
from knowledge_base.detect import text_encoding
from knowledge_base.document import DocumentFormat, Section, SectionStream
from knowledge_base.parsers.base import corrupt
from knowledge_base.parsers.rows import iter_rows_text, row_sections

_DELIMITERS = ",;\t|"
_SNIFF_CHARS = 16384


def stream(data: bytes, filename: str) -> SectionStream:
    encoding = text_encoding(data)
    head = data[: _SNIFF_CHARS * 4].decode(encoding, errors="replace")[:_SNIFF_CHARS]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(head, _DELIMITERS)
    except csv.Error:
        # One-column files and odd quoting defeat the sniffer; a comma is the sane default.
        dialect = csv.excel_tab if filename.lower().endswith(".tsv") else csv.excel
    out = SectionStream(
        DocumentFormat.CSV, iter(()), {"rows": 0, "columns": 0}, total=len(data), unit="bytes"
    )
    out.sections = _sections(data, encoding, dialect, filename, out)
    return out


def _sections(
    data: bytes, encoding: str, dialect: type[csv.Dialect] | csv.Dialect, filename: str, out: SectionStream
) -> Iterator[Section]:
    raw = io.BytesIO(data)  # shares the bytes; decoding happens line by line in the wrapper
    text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")

    def rows() -> Iterator[list[str]]:
        for row in csv.reader(text, dialect):
            out.metadata["rows"] += 1
            out.metadata["columns"] = max(out.metadata["columns"], len(row))
            out.done = raw.tell()
            yield row

    try:
        yield from row_sections(iter_rows_text(rows()))
    except StrataError:
        raise
    except csv.Error as exc:
        raise corrupt(filename, "CSV file", exc) from exc
    finally:
        text.detach()
    out.done = out.total
