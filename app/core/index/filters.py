"""Typed filters over a corpus's prefilter columns, compiled once each for LanceDB, NumPy and SQL.

Callers never build filter strings: they state terms (`Eq`, `OneOf`, `Between`) over known
columns, and this module alone turns them into a LanceDB expression (with correct literal
quoting), a boolean mask over the in-memory vector copy, or SQL clauses with bind parameters.
The three compilations select the same rows; a test checks them against each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

Value = str | int | bool

# Column -> the Python type its values must have ("key" is the vector key every collection has).
COLUMN_KINDS: dict[str, type] = {
    "key": str,
    "user_id": str,
    "platform": str,
    "channel": str,
    "person": str,
    "tier": str,
    "timestamp": int,
    "archived": bool,
    "content_hash": str,
    "document_id": str,
    "kind": str,
}


@dataclass(frozen=True, slots=True)
class Eq:
    column: str
    value: Value


@dataclass(frozen=True, slots=True)
class OneOf:
    column: str
    values: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Between:
    """Inclusive range; a missing bound is open."""

    column: str
    low: int | None = None
    high: int | None = None


Term = Eq | OneOf | Between


@dataclass(frozen=True, slots=True)
class Filter:
    """A conjunction of terms; the empty filter keeps every row."""

    terms: tuple[Term, ...] = ()

    def __post_init__(self) -> None:
        for term in self.terms:
            _check(term)

    def and_(self, *terms: Term | None) -> Filter:
        return Filter(self.terms + tuple(t for t in terms if t is not None))

    def without(self, *columns: str) -> Filter:
        return Filter(tuple(t for t in self.terms if t.column not in columns))

    def only(self, columns: frozenset[str] | set[str]) -> Filter:
        return Filter(tuple(t for t in self.terms if t.column in columns))

    @property
    def columns(self) -> frozenset[str]:
        return frozenset(t.column for t in self.terms)


def one_of(column: str, values: tuple[Value, ...] | list[Value] | None) -> OneOf | None:
    """A OneOf term, or None when there is nothing to restrict (an empty filter field)."""
    return OneOf(column, tuple(values)) if values else None


def between(column: str, low: int | None, high: int | None) -> Between | None:
    return Between(column, low, high) if low is not None or high is not None else None


def _check(term: Term) -> None:
    kind = COLUMN_KINDS.get(term.column)
    if kind is None:
        raise ValueError(f"unknown filter column {term.column!r}; known: {sorted(COLUMN_KINDS)}")
    values: tuple[object, ...]
    if isinstance(term, Eq):
        values = (term.value,)
    elif isinstance(term, OneOf):
        values = term.values
    else:
        kind = int
        values = tuple(v for v in (term.low, term.high) if v is not None)
    for value in values:
        # bool is an int subclass: keep them apart so `timestamp = True` is a caller bug, not a row.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"filter column {term.column!r} takes {kind.__name__}, got {value!r}")


# -- LanceDB ----------------------------------------------------------------------------------
def lance_literal(value: Value) -> str:
    """A LanceDB (DataFusion SQL) literal: strings single-quoted with quotes doubled."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    return "'" + value.replace("'", "''") + "'"


def to_lance(f: Filter) -> str | None:
    """The filter as a LanceDB `where` expression; None for the empty filter."""
    parts: list[str] = []
    for term in f.terms:
        if isinstance(term, Eq):
            parts.append(f"{term.column} = {lance_literal(term.value)}")
        elif isinstance(term, OneOf):
            if not term.values:
                parts.append("false")
            else:
                parts.append(f"{term.column} IN ({', '.join(lance_literal(v) for v in term.values)})")
        else:
            if term.low is not None:
                parts.append(f"{term.column} >= {int(term.low)}")
            if term.high is not None:
                parts.append(f"{term.column} <= {int(term.high)}")
    return " AND ".join(parts) if parts else None


# -- NumPy ------------------------------------------------------------------------------------
def to_mask(f: Filter, columns: Mapping[str, np.ndarray], size: int) -> np.ndarray:
    """The filter over the in-memory copy's columns (strings as unicode arrays, nulls as ""/0/False)."""
    mask = np.ones(size, dtype=bool)
    for term in f.terms:
        column = columns[term.column]
        if isinstance(term, Eq):
            mask &= column == term.value
        elif isinstance(term, OneOf):
            mask &= np.isin(column, list(term.values))
        else:
            if term.low is not None:
                mask &= column >= term.low
            if term.high is not None:
                mask &= column <= term.high
    return mask


# -- SQL --------------------------------------------------------------------------------------
def to_sql(
    f: Filter, expressions: Mapping[str, str], *, prefix: str = "f"
) -> tuple[list[str], dict[str, object]]:
    """Clauses and bind parameters; `expressions` maps each column to its SQL expression
    (e.g. "archived" -> "(m.archived_at IS NOT NULL)"). Values only ever travel as parameters."""
    clauses: list[str] = []
    params: dict[str, object] = {}

    def bind(value: object) -> str:
        name = f"{prefix}{len(params)}"
        params[name] = value
        return f":{name}"

    for term in f.terms:
        expr = expressions[term.column]
        if isinstance(term, Eq):
            clauses.append(f"{expr} = {bind(term.value)}")
        elif isinstance(term, OneOf):
            if not term.values:
                clauses.append("0 = 1")
            else:
                clauses.append(f"{expr} IN ({', '.join(bind(v) for v in term.values)})")
        else:
            if term.low is not None:
                clauses.append(f"{expr} >= {bind(term.low)}")
            if term.high is not None:
                clauses.append(f"{expr} <= {bind(term.high)}")
    return clauses, params
