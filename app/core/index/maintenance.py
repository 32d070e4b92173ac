"""Verify a kind's index against SQLite, and rebuild what drifted (missing, stale or orphan entries).

Each kind's owner supplies an `IndexSource` (its rows as `IndexDoc`s, and how to stamp which
model and content hash a vector was made from); the corpus does the rest the same way for every
kind. Repair of a kind is deferred while another live process writes that kind (writer lease):
its rows-without-vectors are work in flight, not crash leftovers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from sqlalchemy.orm import Session

from app.core.index.corpus import Corpus, IndexDoc
from app.core.storage.db import Database, chunked

log = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]
BATCH = 256


class IndexSource(Protocol):
    """A kind's rows in SQLite, as the index sees them."""

    def keys(self, session: Session) -> set[str]:
        """Every key SQLite holds for this kind."""
        ...

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        """Keys SQLite marks as lacking a vector of this model (no stamp, or another model's)."""
        ...

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]: ...

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        """Record that `docs` now have vectors of this model (no-op for kinds without stamps)."""
        ...

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        """After a completed model switch: rows stamped with `old_model` now have this model's vectors."""
        ...


@dataclass(frozen=True, slots=True)
class KindReport:
    """One kind's state (verify) or what was done to it (repair)."""

    kind: str
    rows: int
    vectors: int
    missing: int = 0  # rows without a current vector
    orphans: int = 0  # vectors (or keyword entries) whose row is gone
    stale: int = 0  # vectors made from an older version of the row
    keyword_missing: int = 0
    reembedded: int = 0
    orphans_removed: int = 0
    keywords_rebuilt: int = 0
    deferred_for: tuple[str, ...] = ()  # live writers (pid:token) that made repair wait

    @property
    def healthy(self) -> bool:
        return not (self.missing or self.orphans or self.stale or self.keyword_missing)

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "rows": self.rows,
            "vectors": self.vectors,
            "missing": self.missing,
            "orphans": self.orphans,
            "stale": self.stale,
            "keyword_missing": self.keyword_missing,
            "reembedded": self.reembedded,
            "orphans_removed": self.orphans_removed,
            "keywords_rebuilt": self.keywords_rebuilt,
            "deferred_for": list(self.deferred_for),
        }


@dataclass(frozen=True, slots=True)
class Drift:
    rows: int
    vectors: int
    missing: list[str]
    orphans: list[str]
    stale: list[str]
    keyword_missing: list[str]


def find_drift(db: Database, corpus: Corpus, source: IndexSource, *, full: bool) -> Drift:
    """Compare SQLite with the current model's collection (and the keyword index).

    The quick check trusts the stamps and counts; `full` also compares every key and recomputes
    every content hash."""
    model, dims = corpus.embedder.model_id, corpus.embedder.dimensions
    collection = corpus.collection
    counter = getattr(source, "count", None)  # optional: kinds with many rows count them in SQL
    if not full and counter is not None:
        with db.read() as session:
            rows = int(counter(session))
            unembedded = set(source.unembedded(session, model, dims))
            keyword_count = corpus.keywords.count(session, corpus.kind)
        vector_count = collection.count()
        if vector_count == rows - len(unembedded) and keyword_count == rows:
            # The counts agree: the quick check trusts them, and never holds a million keys (two
            # sets of them cost ~4 s of the GIL and +150 MB at 1M messages, a few seconds after
            # every start, right when the first search runs).
            return Drift(rows, vector_count, sorted(unembedded), [], [], [])
    with db.read() as session:
        keys = source.keys(session)
        unembedded = set(source.unembedded(session, model, dims))
        keyword_refs = corpus.keywords.refs(session, corpus.kind)
    vector_count = collection.count()
    missing: set[str] = set(unembedded & keys)
    orphans: list[str] = []
    if full or vector_count != len(keys) - len(missing):
        stored = set(collection.keys())
        orphans = sorted(stored - keys)
        missing |= keys - stored
    stale: list[str] = []
    if full:
        for part in chunked(sorted(keys - missing), BATCH):
            with db.read() as session:
                docs = source.documents(session, part)
            stale += [d.key for d in docs if d.stamped_hash is not None and d.stamped_hash != d.content_hash]
    return Drift(
        rows=len(keys),
        vectors=vector_count,
        missing=sorted(missing),
        orphans=orphans,
        stale=stale,
        keyword_missing=sorted(keys - keyword_refs) if corpus.spec.keyword else [],
    )


def verify(db: Database, corpus: Corpus, source: IndexSource, *, full: bool = False) -> KindReport:
    drift = find_drift(db, corpus, source, full=full)
    return KindReport(
        kind=corpus.kind,
        rows=drift.rows,
        vectors=drift.vectors,
        missing=len(drift.missing),
        orphans=len(drift.orphans),
        stale=len(drift.stale),
        keyword_missing=len(drift.keyword_missing),
    )


def repair(
    db: Database,
    corpus: Corpus,
    source: IndexSource,
    *,
    full: bool = False,
    progress: Progress | None = None,
) -> KindReport:
    """Rebuild from SQLite what drifted: re-embed missing/stale rows, drop orphans, re-index text."""
    live = corpus.leases.live(corpus.kind) if corpus.leases is not None else []
    if live:
        # Another process is between writing rows and writing their vectors: not ours to fix.
        report = verify(db, corpus, source)
        log.info("repair of %s deferred: %d live writer(s)", corpus.kind, len(live))
        return replace(report, deferred_for=tuple(live))
    drift = find_drift(db, corpus, source, full=full)
    if drift.orphans:
        corpus.remove_vectors(drift.orphans)
    todo = sorted(set(drift.missing) | set(drift.stale))
    done = reembed(db, corpus, source, todo, progress=progress)
    rebuilt = 0
    for part in chunked(drift.keyword_missing, BATCH):
        with db.write() as session:
            docs = source.documents(session, part)
            for user_id in {d.user_id for d in docs}:
                items = [(d.key, d.keyword_text) for d in docs if d.user_id == user_id]
                corpus.index_text(session, user_id, items)
            rebuilt += len(docs)
    return KindReport(
        kind=corpus.kind,
        rows=drift.rows,
        vectors=corpus.collection.count(),
        missing=len(drift.missing),
        orphans=len(drift.orphans),
        stale=len(drift.stale),
        keyword_missing=len(drift.keyword_missing),
        reembedded=done,
        orphans_removed=len(drift.orphans),
        keywords_rebuilt=rebuilt,
    )


def reembed(
    db: Database,
    corpus: Corpus,
    source: IndexSource,
    keys: Sequence[str],
    *,
    progress: Progress | None = None,
) -> int:
    """Embed `keys` with the corpus's model, then stamp them (second, short transaction)."""
    done = 0
    model, dims = corpus.embedder.model_id, corpus.embedder.dimensions
    for part in chunked(list(keys), BATCH):
        with db.read() as session:
            docs = source.documents(session, part)
        if docs:
            corpus.embed(docs)
            with db.write() as session:
                source.stamp(session, docs, model, dims)
            done += len(docs)
        if progress:
            progress(done, len(keys))
    return done
