"""CSV/TSV: delimiter sniffed, rows rendered with their header names."""

from __future__ import annotations

import csv
import io

from app.core.errors import StrataError
from knowledge_base.detect import decode_text
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean, corrupt
from knowledge_base.parsers.rows import render_rows

_DELIMITERS = ",;\t|"


def parse(data: bytes, filename: str) -> ParsedDocument:
    text = decode_text(data)
    try:
        try:
            dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:16384], _DELIMITERS)
        except csv.Error:
            # One-column files and odd quoting defeat the sniffer; a comma is the sane default.
            dialect = csv.excel_tab if filename.lower().endswith(".tsv") else csv.excel
        rows = list(csv.reader(io.StringIO(text), dialect))
    except StrataError:
        raise
    except csv.Error as exc:
        raise corrupt(filename, "CSV file", exc) from exc
    lines = render_rows(rows)
    metadata = {"rows": len(rows), "columns": max((len(r) for r in rows), default=0)}
    return build(DocumentFormat.CSV, filename, [Section(text=clean("\n".join(lines)))], metadata)
