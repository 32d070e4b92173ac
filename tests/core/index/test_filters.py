"""Typed filters: the LanceDB, NumPy and SQL compilations select the same rows, whatever the values hold."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from app.core.index.filters import Between, Eq, Filter, OneOf, to_lance, to_mask, to_sql
from app.core.storage.vectors import VectorStore
from app.core.storage.vectors import arrow_column as _column

# Values that broke (or would break) filters built by string concatenation.
NASTY = ["O'Brien", "a\\b", "x' OR '1'='1", "'; DROP TABLE t; --", 'say "hi"', "日本語", "", "tab\there"]
COLUMNS = ("user_id", "channel", "person", "timestamp", "archived")


@pytest.fixture
def rows() -> list[dict[str, object]]:
    return [
        {
            "key": str(i),
            "user_id": "u1" if i % 3 else "u'2",
            "channel": NASTY[i % len(NASTY)],
            "person": NASTY[(i * 5) % len(NASTY)],
            "timestamp": 1000 + i,
            "archived": i % 4 == 0,
        }
        for i in range(40)
    ]


FILTERS = [
    Filter(),
    Filter((Eq("user_id", "u'2"),)),
    Filter((Eq("channel", "x' OR '1'='1"),)),
    Filter((OneOf("channel", ("O'Brien", "a\\b", "日本語")), Eq("archived", False))),
    Filter((OneOf("person", ("'; DROP TABLE t; --", 'say "hi"')), Between("timestamp", 1005, 1030))),
    Filter((Between("timestamp", None, 1010), Eq("user_id", "u1"))),
    Filter((OneOf("channel", ()),)),  # an empty choice keeps nothing
    Filter((Eq("channel", ""),)),
]


def _lance_keys(tmp_path: Path, rows: list[dict[str, object]], where: Filter) -> set[str]:
    collection = VectorStore(tmp_path / "v").collection("t", "m", 4, COLUMNS)
    if collection.count() == 0:
        vectors = np.ones((len(rows), 4), dtype=np.float32) / 2
        collection.upsert([str(r["key"]) for r in rows], vectors, rows)
    hits = collection.search(np.ones(4, dtype=np.float32) / 2, 100, where)
    return {h.key for h in hits}


def _mask_keys(rows: list[dict[str, object]], where: Filter) -> set[str]:
    columns = {c: _column(pa.array([r[c] for r in rows])) for c in COLUMNS}
    mask = to_mask(where, columns, len(rows))
    return {str(r["key"]) for r, keep in zip(rows, mask, strict=True) if keep}


def _sql_keys(rows: list[dict[str, object]], where: Filter) -> set[str]:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE TABLE t (key TEXT, user_id TEXT, channel TEXT, person TEXT, timestamp INT, archived INT)"
    )
    conn.executemany("INSERT INTO t VALUES (:key, :user_id, :channel, :person, :timestamp, :archived)", rows)
    clauses, params = to_sql(where, {c: f"t.{c}" for c in COLUMNS})
    sql = "SELECT key FROM t" + (" WHERE " + " AND ".join(clauses) if clauses else "")
    return {r[0] for r in conn.execute(sql, params)}


def _python_keys(rows: list[dict[str, object]], where: Filter) -> set[str]:
    def keeps(row: dict[str, object]) -> bool:
        for t in where.terms:
            value = row[t.column]
            if isinstance(t, Eq) and value != t.value:
                return False
            if isinstance(t, OneOf) and value not in t.values:
                return False
            if isinstance(t, Between) and (
                (t.low is not None and value < t.low) or (t.high is not None and value > t.high)  # type: ignore[operator]
            ):
                return False
        return True

    return {str(r["key"]) for r in rows if keeps(r)}


@pytest.mark.parametrize("where", FILTERS, ids=lambda f: to_lance(f) or "all")
def test_three_compilations_agree_with_plain_python(tmp_path: Path, rows, where: Filter) -> None:
    want = _python_keys(rows, where)
    assert _lance_keys(tmp_path, rows, where) == want
    assert _mask_keys(rows, where) == want
    assert _sql_keys(rows, where) == want


def test_values_never_reach_sql_text() -> None:
    clauses, params = to_sql(Filter((OneOf("channel", ("x' OR 1=1 --",)),)), {"channel": "m.channel"})
    assert clauses == ["m.channel IN (:f0)"] and params == {"f0": "x' OR 1=1 --"}


def test_unknown_columns_and_wrong_types_are_caller_errors() -> None:
    with pytest.raises(ValueError, match="unknown filter column"):
        Filter((Eq("channel; DROP", "x"),))
    with pytest.raises(TypeError, match="takes int"):
        Filter((Between("timestamp", True, None),))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes str"):
        Filter((Eq("user_id", 3),))
