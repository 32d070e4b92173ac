"""Erasing deleted rows' bytes from LanceDB's data files: the fragments that held them are rewritten.

LanceDB's delete only masks a row (a deletion file beside its fragment); the row's bytes (its
vector, key and prefilter columns) stay in the fragment's data file until a compaction rewrites
that fragment, and LanceDB 0.40's `optimize` rewrites a large fragment only once ~10 % of it is
deleted. So a deletion here also rewrites every fragment of the tables it touched that holds
masked rows (its own, and earlier versions of replaced rows: an edited message's old vector, the
keys of a message archived before), through LanceDB's own API: the live rows are updated in
place by key (`merge_insert`, in batches), which writes them into a new fragment and, once the
last batch has marked every row of the old one, drops that fragment from the table. The old data
file then belongs to old versions only, and the purge (`VectorCollection.purge_history`) removes
it with them; the same `optimize` merges the rewritten rows into LanceDB's vector index, whose
rebuilt segment no longer lists the old fragment's rows.

Which tables are due is recorded in SQLite (`vector_erasures`) *before* the rows are deleted and
cleared only after the purge (the fragments are found then, from the live rows' ids), so a crash
in between leaves the erasure pending: the index repair job (a few seconds after start) and
`doctor --repair` finish it. Each batch is one commit that keeps every row, so a crash
mid-rewrite loses nothing either.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import BigInteger, String, delete, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.storage.models import Base
from app.core.storage.vectors import VectorCollection

log = logging.getLogger(__name__)

# Rows rewritten per commit: bounds the memory of one batch (~1.6 KB a 384-d row → ~160 MB).
BATCH = 100_000
# A fragment's rows carry row ids `fragment << 32 | offset` (LanceDB without stable row ids).
FRAGMENT_SHIFT = 32
OFFSET_MASK = (1 << FRAGMENT_SHIFT) - 1
# Recorded instead of a fragment id: every fragment of the table that holds masked rows (the
# deleted ones, and earlier versions of replaced rows: an edited message's old vector, a summary
# a deletion hook rewrote, the keys of a message archived before its deletion).
WHOLE_TABLE = -1


class VectorErasureRow(Base):
    """A fragment of a LanceDB table that still holds bytes of deleted rows."""

    __tablename__ = "vector_erasures"

    collection: Mapped[str] = mapped_column(String(200), primary_key=True)
    fragment: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    recorded_at: Mapped[int] = mapped_column(BigInteger)


@dataclass(frozen=True, slots=True)
class EraseReport:
    fragments: int  # fragments rewritten
    rows: int  # live rows written anew with them


def record(session: Session, collection: str, fragments: Iterable[int], now: int) -> None:
    """Note fragments to rewrite (in the caller's transaction); a fragment noted twice stays one row."""
    for fragment in set(fragments):
        if session.get(VectorErasureRow, (collection, fragment)) is None:
            session.add(VectorErasureRow(collection=collection, fragment=fragment, recorded_at=now))


def pending(session: Session) -> dict[str, set[int]]:
    """Collection name → fragments still to rewrite."""
    due: dict[str, set[int]] = defaultdict(set)
    for row in session.scalars(select(VectorErasureRow)):
        due[row.collection].add(row.fragment)
    return dict(due)


def pending_count(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(VectorErasureRow)) or 0)


def clear(session: Session, collection: str, fragments: Iterable[int]) -> None:
    for fragment in set(fragments):
        session.execute(
            delete(VectorErasureRow).where(
                VectorErasureRow.collection == collection, VectorErasureRow.fragment == fragment
            )
        )


def _beyond(collection: VectorCollection, rowid: int) -> bool:
    """Whether the fragment of `rowid` has no live row at or after it."""
    high = ((rowid >> FRAGMENT_SHIFT) + 1) << FRAGMENT_SHIFT
    data = (
        collection.table.search()
        .where(f"_rowid >= {rowid} AND _rowid < {high}")
        .with_row_id(True)
        .select(["key"])
        .limit(1)
        .to_arrow()
    )
    return data.num_rows == 0


def masked_fragments(collection: VectorCollection) -> set[int]:
    """Fragments of the current version holding masked (deleted or replaced) rows.

    Read from the live rows' ids: a fragment whose live rows are fewer than its highest offset + 1
    holds masked rows. Masked rows at a fragment's end do not show that way; when the manifest
    counts more masked rows than were found, every fragment is taken."""
    if not collection.exists:
        return set()
    table = collection.table
    versions = table.list_versions()
    latest = max(versions, key=lambda v: v["version"]) if versions else None
    masked = int((latest or {}).get("metadata", {}).get("total_deletion_file_rows", 0) or 0)
    if masked == 0 or table.count_rows() == 0:
        return set()
    data = table.search().with_row_id(True).select(["key"]).limit(None).to_arrow()
    rowids = data.column("_rowid").to_numpy()
    fragments, inverse, counts = np.unique(rowids >> FRAGMENT_SHIFT, return_inverse=True, return_counts=True)
    highest = np.zeros(len(fragments), dtype=np.int64)
    np.maximum.at(highest, inverse, (rowids & OFFSET_MASK).astype(np.int64))
    holes = highest + 1 - counts
    if int(holes.sum()) < masked:
        return {int(f) for f in fragments}
    return {int(f) for f, h in zip(fragments, holes, strict=True) if h > 0}


def rewrite(collection: VectorCollection, fragments: Iterable[int], batch: int = BATCH) -> EraseReport:
    """Write the live rows of `fragments` anew, so the fragments (and their deleted rows) leave the
    table's current version; fragments no longer there (compacted since) need nothing.

    A rewrite keeps every row (same key, columns and vector); only LanceDB row ids change, which
    is what a compaction does too, so the in-memory copies are told it as maintenance."""
    wanted = set(fragments)
    if WHOLE_TABLE in wanted:
        wanted = (wanted - {WHOLE_TABLE}) | masked_fragments(collection)
    if not wanted or not collection.exists:
        return EraseReport(0, 0)
    columns = [f.name for f in collection.schema]
    done, rows = 0, 0
    for fragment in sorted(wanted):
        low = fragment << FRAGMENT_SHIFT
        written = 0
        # By offset ranges, so one batch is in memory at a time (a fragment may hold 1M rows).
        for start in range(0, 1 << FRAGMENT_SHIFT, batch):
            part = (
                collection.table.search()
                .where(f"_rowid >= {low + start} AND _rowid < {low + start + batch}")
                .select(columns)
                .limit(None)
                .to_arrow()
            )
            if part.num_rows == 0 and not _beyond(collection, low + start):
                continue  # a run of deleted rows: later offsets may still hold live ones
            if part.num_rows == 0:
                break
            collection.maintain(
                lambda part=part: collection.table.merge_insert("key").when_matched_update_all().execute(part)
            )
            written += part.num_rows
        if written:  # 0: compacted or wholly deleted since, its file already out of the version
            done, rows = done + 1, rows + written
    return EraseReport(done, rows)
