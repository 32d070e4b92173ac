"""Drop a vector collection's old table versions, and the files only they use, once no reader can.

Every LanceDB write leaves a new version; the files of the ones before (rows rewritten by an
upsert or a compaction, and a whole vector index after the background job trains a new one: ~370
MB at 1M rows) stay on disk until a cleanup removes those versions. LanceDB removes the versions
*committed* before a cutoff, but what makes a version safe to drop is when it stopped being the
latest: a search in this or another process (the app, `serve`, their search workers) reads the
version that was latest when it began. So a version goes only once the version after it is
`margin` old, and the cutoff is set just before the newest such version, never after it.

When nothing was written for `margin`, all versions but the latest go (LanceDB keeps the latest).
A write landing in the ~0.1 s of that call (the caller skips the prune while a writer of the kind
holds its lease) would have its predecessor removed under a search in flight on it: that search
fails once, and the next one reads the new version (reads check for the latest every time).

LanceDB (0.40) prunes only inside `optimize`, which also compacts and, the first time after an
index is built, rewrites that index (at 1M rows into one costing ~3x the CPU a search): the
caller decides when that is acceptable (`IndexService.prune_vector_versions`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.core.storage.vectors import VectorCollection

log = logging.getLogger(__name__)

# Far beyond any read (a search takes seconds, a whole in-memory copy load under a minute), and
# short enough that a replaced index's space comes back within the hour (the job runs every 10 min).
MARGIN = timedelta(minutes=30)
# LanceDB turns the age it is given into a cutoff by its own clock, read after its compaction and
# index steps (no-ops here: done just before; 0.08 s at 1M rows). The cutoff sits this far before
# the newest droppable version, so that delay cannot carry it past that version. Versions written
# within it of that one wait for a later prune (all but the latest go once nothing was written for
# `margin`).
SETTLE = timedelta(seconds=5)


@dataclass(frozen=True, slots=True)
class PruneReport:
    versions_before: int
    versions_after: int
    bytes_before: int
    bytes_after: int
    seconds: float

    @property
    def bytes_freed(self) -> int:
        return max(0, self.bytes_before - self.bytes_after)


def cutoff(
    versions: list[dict[str, Any]], now: datetime, margin: timedelta, settle: timedelta
) -> datetime | None:
    """The commit time before which every version was replaced at least `margin` ago (None: no
    version is that old yet). The newest version committed by `now - margin` may still be read
    (its successor is younger), so the cutoff lies `settle` before it and it stays. When that
    version is the latest (nothing written for `margin`), every other one may go: `now`."""
    stamps = sorted(_aware(v["timestamp"]) for v in versions)
    settled = [t for t in stamps if t <= now - margin]
    if not settled or len(stamps) < 2:
        return None
    if settled[-1] == stamps[-1]:
        # LanceDB never removes the latest version, so no settle is needed to keep it.
        return now
    limit = settled[-1] - settle
    return limit if stamps[0] < limit else None


def due(collection: VectorCollection, *, margin: timedelta = MARGIN, settle: timedelta = SETTLE) -> bool:
    """Whether `prune` would remove a version now (reads the version list only)."""
    if not collection.exists:
        return False
    return cutoff(collection.table.list_versions(), datetime.now(UTC), margin, settle) is not None


def prune(
    collection: VectorCollection,
    *,
    margin: timedelta = MARGIN,
    settle: timedelta = SETTLE,
) -> PruneReport | None:
    """Remove the versions of `collection` replaced more than `margin` ago and the files only they
    use; None when there is nothing to remove (the usual case: a few metadata reads)."""
    if not due(collection, margin=margin, settle=settle):
        return None
    table = collection.table
    started = time.perf_counter()
    path = collection.path
    bytes_before = _size(path)
    # LanceDB prunes only inside `optimize`, after compacting and indexing new rows. Done first on
    # their own (old versions kept), so the pruning call below starts its clock at once.
    collection.optimize()
    versions = table.list_versions()
    now = datetime.now(UTC)
    limit = cutoff(versions, now, margin, settle)
    if limit is not None:
        age = max(now - limit, timedelta(milliseconds=1))  # LanceDB warns at 0; never needed
        collection.maintain(lambda: table.optimize(cleanup_older_than=age))
    report = PruneReport(
        len(versions), len(table.list_versions()), bytes_before, _size(path), time.perf_counter() - started
    )
    log.info(
        "pruned %s: %d -> %d versions, %.1f MB freed in %.1f s",
        collection.name,
        report.versions_before,
        report.versions_after,
        report.bytes_freed / 1e6,
        report.seconds,
    )
    return report


def _aware(stamp: datetime) -> datetime:
    # LanceDB gives naive local times (datetime.fromtimestamp); astimezone reads them as local.
    return stamp.astimezone(UTC) if stamp.tzinfo is None else stamp


def _size(path: Path) -> int:
    """Bytes under `path` (files another process removes meanwhile are skipped)."""
    total = 0
    for item in path.rglob("*"):
        try:
            if item.is_file():
                total += item.stat().st_size
        except OSError:
            continue
    return total
