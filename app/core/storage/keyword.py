"""BM25 keyword index over SQLite FTS5, shared by every record kind (messages, summaries, chunks …).

FTS5's unicode61 tokenizer splits on spaces, which Chinese, Japanese and Korean text lacks, so
CJK runs are rewritten into overlapping character bigrams (plus single characters) both when
indexing and when querying — the classic CJK analyzer approach, no dictionary needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.core.storage.db import chunked
from app.core.storage.keyword_budget import FrequencyCache, bounded_expression, or_expression, table_size

_CJK = (
    r"\u3040-\u30ff"  # Hiragana, Katakana
    r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    r"\uac00-\ud7af\u1100-\u11ff"  # Hangul
)
MESSAGE_KIND = "message"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)

# Very common English words add noise to OR queries without adding recall; the last line holds
# what the tokenizer leaves of contractions and possessives ("John's" → john, s).
STOPWORDS = frozenset(
    """
    a an and are as at be been but by can could did do does doing for from had has have he her
    hers him his how i if in into is it its just me my no nor not of on or our ours she should
    so some such than that the their them then there these they this those to too very was we
    were what when where which who whom why will with would you your yours about after again
    all also am any because before being both down during each few further here more most off
    once only other out over own same under until up while
    s t d ll re ve m don didn doesn isn wasn weren won wouldn couldn shouldn haven hasn hadn aren
    """.split()  # noqa: SIM905 - a word list reads better as text than as 130 lines
)


def segment_cjk(run: str, *, for_query: bool) -> list[str]:
    """Bigrams of a CJK run; the index also keeps single characters so one-char queries match."""
    if len(run) == 1:
        return [run]
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    return grams if for_query else grams + list(run)


def index_text(body: str) -> str:
    """Text as stored in FTS5: Latin words untouched, CJK runs expanded to n-grams."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(segment_cjk(m.group(0), for_query=False)) + " ", body)


def query_terms(query: str, *, drop_stopwords: bool = True) -> list[str]:
    terms: list[str] = []
    for token in _TOKEN.findall(query.lower()):
        if _CJK_RUN.fullmatch(token):
            terms.extend(segment_cjk(token, for_query=True))
        elif not (drop_stopwords and token in STOPWORDS):
            terms.append(token)
    if not terms and drop_stopwords:
        return query_terms(query, drop_stopwords=False)
    return list(dict.fromkeys(terms))


def match_expression(query: str) -> str | None:
    """An FTS5 OR-query of quoted terms (quoting neutralizes FTS syntax in user input)."""
    return or_expression(query_terms(query))


@dataclass(frozen=True, slots=True)
class KeywordHit:
    ref: str
    score: float  # BM25, higher is better


class KeywordIndex:
    """Insert, replace, delete and BM25-search text under a (kind, ref) key."""

    def __init__(self) -> None:
        self.frequencies = FrequencyCache()

    def upsert(self, session: Session, kind: str, user_id: str, items: Iterable[tuple[str, str]]) -> None:
        """Index `(ref, body)` pairs, replacing earlier text for the same ref."""
        items = list(items)
        if not items:
            return
        self.delete(session, kind, [ref for ref, _ in items])
        if kind == MESSAGE_KIND:
            session.execute(
                text("INSERT INTO messages_fts(rowid, body) VALUES (:i, :b)"),
                [{"i": int(ref), "b": index_text(body)} for ref, body in items],
            )
            return
        # We hold the write lock (BEGIN IMMEDIATE), so numbering rowids ourselves is race-free and
        # lets both inserts run as executemany instead of one statement per item.
        start = int(session.execute(text("SELECT coalesce(max(rowid), 0) FROM keyword_fts")).scalar_one()) + 1
        fts_rows = [
            {"i": start + n, "b": index_text(body), "k": kind, "r": ref, "u": user_id}
            for n, (ref, body) in enumerate(items)
        ]
        session.execute(
            text("INSERT INTO keyword_fts(rowid, body, kind, ref, user_id) VALUES (:i, :b, :k, :r, :u)"),
            fts_rows,
        )
        session.execute(
            text("INSERT INTO keyword_refs(kind, ref, fts_rowid, user_id) VALUES (:k, :r, :i, :u)"), fts_rows
        )

    def delete(self, session: Session, kind: str, refs: Sequence[str]) -> None:
        if kind == MESSAGE_KIND:
            for part in chunked([int(r) for r in refs]):
                ids = ", ".join(str(i) for i in part)
                session.execute(text(f"DELETE FROM messages_fts WHERE rowid IN ({ids})"))
            return
        for part in chunked(list(refs)):
            params = {f"r{i}": r for i, r in enumerate(part)}
            names = ", ".join(f":r{i}" for i in range(len(part)))
            rows = session.execute(
                text(f"SELECT fts_rowid FROM keyword_refs WHERE kind = :k AND ref IN ({names})"),
                {"k": kind, **params},
            ).all()
            if not rows:
                continue
            ids = ", ".join(str(int(r[0])) for r in rows)
            session.execute(text(f"DELETE FROM keyword_fts WHERE rowid IN ({ids})"))
            session.execute(
                text(f"DELETE FROM keyword_refs WHERE kind = :k AND ref IN ({names})"), {"k": kind, **params}
            )

    def search(
        self,
        session: Session,
        kind: str,
        user_id: str,
        query: str,
        limit: int,
        *,
        join_sql: str = "",
        where_sql: str = "",
        params: dict[str, object] | None = None,
    ) -> list[KeywordHit]:
        """BM25 hits for `query`; `join_sql`/`where_sql` let a caller prefilter on its own table
        (aliased by the caller, joined on `keyword_fts.ref`)."""
        expr = match_expression(query)
        if expr is None:
            return []
        sql = (
            "SELECT keyword_fts.ref, bm25(keyword_fts) AS rank FROM keyword_fts "
            f"{join_sql} WHERE keyword_fts MATCH :q AND keyword_fts.kind = :k "
            f"AND keyword_fts.user_id = :u {where_sql} ORDER BY rank LIMIT :lim"
        )
        rows = session.execute(
            text(sql), {"q": expr, "k": kind, "u": user_id, "lim": limit, **(params or {})}
        ).all()
        # FTS5's bm25() is negative (more negative = better); flip it for a natural score.
        return [KeywordHit(ref=str(r[0]), score=-float(r[1])) for r in rows]

    def search_messages(
        self,
        session: Session,
        query: str,
        limit: int,
        *,
        join_sql: str = "",
        where_sql: str = "",
        params: dict[str, object] | None = None,
        row_budget: int | None = None,
    ) -> list[KeywordHit]:
        """BM25 over messages; the caller joins `raw_messages m ON m.id = messages_fts.rowid` only when
        it filters, because the join costs as much as the match on large archives.

        With `row_budget`, at most that many matching rows are scored (see keyword_budget)."""
        terms = query_terms(query)
        size = table_size(session, "messages_fts") if row_budget is not None else 0
        if row_budget is None or size <= row_budget:
            expr = or_expression(terms)  # small archives: every match is cheap to score
        else:
            frequencies = self.frequencies.frequencies(session, "messages_fts", terms, size)
            expr = bounded_expression(terms, frequencies, row_budget)
        if expr is None:
            return []
        matched = (
            "SELECT messages_fts.rowid AS id, bm25(messages_fts) AS rank FROM messages_fts "
            f"{join_sql} WHERE messages_fts MATCH :q {where_sql}"
        )
        if row_budget is None:
            sql = f"{matched} ORDER BY rank LIMIT :lim"
        else:
            # The window over the newest matches caps bm25() calls even for one very common word.
            sql = (
                f"SELECT id, rank FROM ({matched} ORDER BY messages_fts.rowid DESC LIMIT :budget) "
                "ORDER BY rank LIMIT :lim"
            )
        bind = {"q": expr, "lim": limit, "budget": row_budget, **(params or {})}
        rows = session.execute(text(sql), bind).all()
        return [KeywordHit(ref=str(r[0]), score=-float(r[1])) for r in rows]

    def refs(self, session: Session, kind: str) -> set[str]:
        """Every ref the index holds for `kind` (to compare with the kind's rows)."""
        if kind == MESSAGE_KIND:
            return {str(r[0]) for r in session.execute(text("SELECT rowid FROM messages_fts"))}
        rows = session.execute(text("SELECT ref FROM keyword_refs WHERE kind = :k"), {"k": kind})
        return {str(r[0]) for r in rows}

    def count(self, session: Session, kind: str) -> int:
        if kind == MESSAGE_KIND:
            return int(session.execute(text("SELECT count(*) FROM messages_fts")).scalar_one())
        return int(
            session.execute(
                text("SELECT count(*) FROM keyword_refs WHERE kind = :k"), {"k": kind}
            ).scalar_one()
        )
