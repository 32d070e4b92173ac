"""Bounded BM25: which query terms FTS5 may score when the query's words are very common.

FTS5 computes bm25() for every row an OR-query matches (~1.3 µs a row on 2 cores), so a query
whose words each appear in a tenth of a 100k archive spends 30+ ms scoring rows no one will
see. Like Lucene's common-terms query, a row qualifies through any of the rarer terms or through
all of the most common ones, and each qualifying row keeps its exact BM25 score. A window over
the newest matches bounds the work whatever the query; nothing changes when the full OR-query
fits the budget.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.orm import Session

# Rows bm25() may score for one query: ~10 ms on 2 cores.
DEFAULT_ROW_BUDGET = 8_000


def quote(term: str) -> str:
    """A term as an FTS5 string (quoting neutralizes FTS syntax in user input)."""
    return '"' + term.replace('"', '""') + '"'


def or_expression(terms: Sequence[str]) -> str | None:
    return " OR ".join(quote(t) for t in terms) or None


def document_frequencies(session: Session, table: str, terms: Sequence[str]) -> list[int]:
    """How many rows of FTS5 `table` contain each term (one round trip; counting skips bm25)."""
    if not terms:
        return []
    columns = ", ".join(
        f"(SELECT count(*) FROM {table} WHERE {table} MATCH :t{i})" for i in range(len(terms))
    )
    row = session.execute(text(f"SELECT {columns}"), {f"t{i}": quote(t) for i, t in enumerate(terms)}).one()
    return [int(v) for v in row]


class FrequencyCache:
    """Document frequencies, counted once and reused until the table grows by `tolerance`.

    Counting walks a term's whole posting list (a few ms for a very common word at 100k rows);
    the budget decision only needs approximate counts, and typed queries repeat their words.
    """

    def __init__(self, *, tolerance: float = 0.05, max_terms: int = 20_000) -> None:
        self.tolerance = tolerance
        self.max_terms = max_terms
        self._counts: dict[tuple[str, str], tuple[int, int]] = {}  # (table, term) → (df, table size)
        self._lock = threading.Lock()

    def frequencies(self, session: Session, table: str, terms: Sequence[str], size: int) -> list[int]:
        """Frequencies of `terms` in `table`, whose highest rowid is now `size`."""
        with self._lock:
            known = {t: self._counts.get((table, t)) for t in terms}
        stale = [t for t, hit in known.items() if hit is None or size > hit[1] * (1 + self.tolerance)]
        counted = dict(zip(stale, document_frequencies(session, table, stale), strict=True))
        with self._lock:
            if len(self._counts) + len(counted) > self.max_terms:
                self._counts.clear()
            for term, df in counted.items():
                self._counts[(table, term)] = (df, size)
        cached = {t: hit[0] for t, hit in known.items() if hit is not None}
        return [counted.get(t, cached.get(t, 0)) for t in terms]


def table_size(session: Session, table: str) -> int:
    """The highest rowid of FTS5 `table` (its docsize shadow table answers without a scan)."""
    return int(session.execute(text(f"SELECT coalesce(max(rowid), 0) FROM {table}_docsize")).scalar_one())


def bounded_expression(terms: Sequence[str], frequencies: Sequence[int], budget: int) -> str | None:
    """The FTS5 expression to score: every term OR-ed when their rows fit `budget`; otherwise
    the same OR-query minus the rows that hold none of the rarest terms (together at most half
    the budget) and not all of the common ones.

    The exclusion sits on the right of NOT, where FTS5 reports no phrase hits, so every row kept
    gets exactly the BM25 score of the OR-query (with no rare term, a plain AND-query does).
    Terms no row contains are dropped, and so are terms found in more rows than the whole budget
    when rarer ones exist: their IDF is the lowest of the query while their posting lists cost
    more to walk than all the rest (on LoCoMo, recall@10 moved by under 0.005 either way;
    docs/benchmarks.md).
    """
    live = [(df, i, t) for i, (t, df) in enumerate(zip(terms, frequencies, strict=True)) if df > 0]
    if not live:
        return None
    if sum(df for df, _, _ in live) <= budget or len(live) == 1:
        return _in_query_order(live)  # a one-word query: the newest-rows window bounds it
    if any(df <= budget for df, _, _ in live):
        live = [x for x in live if x[0] <= budget]
        if sum(df for df, _, _ in live) <= budget:
            return _in_query_order(live)
    rare: list[str] = []
    spent = 0
    ordered = sorted(live)
    for df, _, term in ordered:
        if spent + df > budget // 2:
            break
        rare.append(term)
        spent += df
    common = [t for _, _, t in ordered[len(rare) :]]
    if not rare:
        # Rows holding every term: an AND-query scores them exactly like the OR-query would, and
        # FTS5 answers it by skipping through the posting lists instead of walking them whole.
        return " AND ".join(quote(t) for _, _, t in sorted(live, key=lambda x: x[1]))
    partial = f"({or_expression(common)})"
    if len(common) > 1:
        partial = f"({partial} NOT ({' AND '.join(quote(t) for t in common)}))"
    excluded = partial + "".join(f" NOT {quote(t)}" for t in rare)
    return f"({_in_query_order(live)}) NOT ({excluded})"


def _in_query_order(live: list[tuple[int, int, str]]) -> str | None:
    return or_expression([t for _, _, t in sorted(live, key=lambda x: x[1])])
