"""Credentials in a table: a header row names a password column, the rows below hold the values.

Exports from password managers and shared spreadsheets arrive as CSV or TSV
("username,password,site\\nj.doe,Ledger&Quill8,billing.example.com") or as Markdown tables; no
value sits next to its label, so the label patterns cannot see them. The header decides the
column (a credential word, in the languages of words.py); each row with as many cells gives its
value in that column, if it looks like a value (values.plausible_value).
"""

from __future__ import annotations

import re

from app.core.privacy.values import plausible_value
from app.core.privacy.words import PASSWORD_WORDS

_SEPARATORS = (",", ";", "\t", "|")
_CREDENTIAL_HEADER = re.compile(
    rf"(?i)^\s*(?:[\w\s]*[_\-\s])?(?:{PASSWORD_WORDS}|secret|token|api[_\-\s]?key|pin|otp[_\-\s]?secret"
    r"|totp|2fa[_\-\s]?secret)\s*$"
)


def find_table_secrets(text: str) -> list[tuple[int, int]]:
    """Spans of the cells under a credential column, for each header row in the text."""
    if "\n" not in text:
        return []
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    spans: list[tuple[int, int]] = []
    for i, header in enumerate(lines[:-1]):
        for sep in _SEPARATORS:
            if sep not in header:
                continue
            names = header.split(sep)
            columns = [k for k, name in enumerate(names) if _CREDENTIAL_HEADER.match(name.strip(" *`\"'"))]
            if not columns:
                continue
            for j in range(i + 1, len(lines)):
                cells = lines[j].split(sep)
                if len(cells) != len(names):
                    break  # the table ended
                spans.extend(_cells(cells, columns, starts[j], sep))
    return spans


def _cells(cells: list[str], columns: list[int], line_start: int, sep: str) -> list[tuple[int, int]]:
    out = []
    offsets = [0]
    for cell in cells[:-1]:
        offsets.append(offsets[-1] + len(cell) + len(sep))
    for k in columns:
        raw = cells[k]
        value = raw.strip().strip("\"'`")
        if re.fullmatch(r"[\s:\-|]*", raw) or not plausible_value(value):
            continue  # a Markdown rule (|---|) or an empty or placeholder cell
        begin = line_start + offsets[k] + raw.index(value)
        out.append((begin, begin + len(value)))
    return out
