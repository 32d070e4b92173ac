"""Erasing deleted rows' bytes from LanceDB's files: every fragment holding one is compacted anew.

LanceDB's delete only masks a row (a deletion file beside its fragment); the row's bytes (its
vector, key and prefilter columns) stay in the fragment's data file, and its quantized codes and
row id in the vector index, until a compaction rewrites that fragment. LanceDB 0.40's `optimize`
rewrites a large fragment only once ~10 % of it is deleted and does not take the threshold, so
the erasure runs lance's own compaction (`pylance`, the version lancedb bundles) with
`materialize_deletions_threshold=0`: every fragment holding a masked row (the deleted ones, and
earlier versions of replaced rows: an edited message's old vector, the keys of a message
archived before) is rewritten without it, and the vector index is remapped to the new row ids
with the masked rows dropped (no re-indexing). The old files then belong to old versions only,
which the purge (`VectorCollection.purge_history`) drops with them.

Which tables are due is recorded in SQLite (`vector_erasures`) *before* the rows are deleted and
cleared only after the purge, so a crash in between leaves the erasure pending: the index repair
job (a few seconds after start) and `doctor --repair` finish it. A compaction is one commit that
keeps every row, so a crash during it loses nothing either.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, String, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.storage.models import Base
from app.core.storage.vectors import VectorCollection

log = logging.getLogger(__name__)


class VectorErasureRow(Base):
    """A LanceDB table whose fragments may still hold deleted rows' bytes."""

    __tablename__ = "vector_erasures"

    collection: Mapped[str] = mapped_column(String(200), primary_key=True)
    recorded_at: Mapped[int] = mapped_column(BigInteger)


@dataclass(frozen=True, slots=True)
class EraseReport:
    fragments_removed: int  # fragments rewritten (with the small ones merged beside them)
    fragments_added: int


def record(session: Session, collections: Iterable[str], now: int) -> None:
    """Note tables to erase in (in the caller's transaction); a table noted twice stays one row."""
    for name in set(collections):
        if session.get(VectorErasureRow, name) is None:
            session.add(VectorErasureRow(collection=name, recorded_at=now))


def pending(session: Session) -> list[str]:
    """The tables still to erase in."""
    return list(session.scalars(select(VectorErasureRow.collection).order_by(VectorErasureRow.collection)))


def clear(session: Session, collection: str) -> None:
    session.execute(delete(VectorErasureRow).where(VectorErasureRow.collection == collection))


def masked_rows(collection: VectorCollection) -> int:
    """Rows the table's current version masks (deleted or replaced) but its files still hold."""
    if not collection.exists:
        return 0
    versions = collection.table.list_versions()
    if not versions:
        return 0
    latest = max(versions, key=lambda v: v["version"])
    return int((latest.get("metadata") or {}).get("total_deletion_file_rows") or 0)


def compact(collection: VectorCollection) -> EraseReport:
    """Rewrite every fragment of the table that masks a row, so no current file holds it.

    Row ids change for the rewritten rows, as after any compaction: the in-memory copies, the
    row-id map and the vector file are told it as maintenance."""
    if masked_rows(collection) == 0:
        return EraseReport(0, 0)
    import lance  # pylance, ~200 MB installed: loaded only by an erasure

    def work() -> Any:
        dataset = lance.dataset(str(collection.path))
        return dataset.optimize.compact_files(materialize_deletions_threshold=0.0)

    metrics = collection.maintain(work)
    return EraseReport(int(metrics.fragments_removed), int(metrics.fragments_added))
