"""The approximate vector index of a collection too large for the in-memory exact copy.

Past `INDEX_MIN_ROWS` rows a collection gets a LanceDB IVF index on its vectors plus scalar
indexes on its prefilter columns, built and refreshed by a background job (never by a search).
Searches then probe `NPROBES` of its ~1,000-row partitions (`COARSE_NPROBES` of the ~4,000-row
partitions of an index built before those, until the job trains it anew) and re-score
`REFINE_FACTOR` × limit candidates from
the stored full vectors, so the order and the cosines returned are exact for the candidates
found; the typed filter is applied before the vector search (prefilter). Rows written after the
last build or refresh live in fragments the index does not cover yet; LanceDB scans those in
full next to the index, so a fresh row is found at once (a test checks it). The refresh adds
them to the index without retraining it (`optimize`); once the index is made of too many such
additions it is trained again.
Choice of index and figures: docs/benchmarks.md, "Vector search at 1M".
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from app.core.index.filters import Filter, Term, to_lance
from app.core.index.narrow import narrow_probes
from app.core.storage.vector_cache import DEFAULT_MAX_ROWS
from app.core.storage.vectors import VectorCollection, VectorHit

log = logging.getLogger(__name__)

# Built a little before the in-memory copy hands over, so the index is there when it does.
INDEX_MIN_ROWS = DEFAULT_MAX_ROWS * 4 // 5
# IVF_SQ against IVF_PQ at 1M recycled real vectors (docs/benchmarks.md): Recall@10 0.999 vs
# 0.87, built in a third of the time; 8-bit codes cost 384 bytes a row on disk. Probes: at 1M
# (250 partitions) Recall@10 of the search path was 0.955 with 20, 0.982 with 30, 0.985 with 40.
INDEX_TYPE = "IVF_SQ"
# Partitions of ~1,000 rows probed 80 at a time read 80k codes where ~4,000-row ones probed 40
# at a time read 160k: at 1M, Recall@10 of the vector leg 0.988 / 0.988 (no filter / filters)
# against 0.988 / 0.980, and 17.2 against 20.3 ms CPU a search (p95 28 against 43), interleaved
# in one process (docs/benchmarks.md, "1M: wall-clock critical path"). 60 probes: 0.968.
PARTITION_ROWS = 1000
# An index trained for a target partition size (`build`, opt16) probed 100 at a time: Recall@10
# of the vector leg 0.993 at 14.5 ms CPU (100 LoCoMo questions at 1M), against 0.973 / 13.0 ms
# with 80 probes, and 0.982 / 17.7 ms for the earlier partition-count index with 80.
NPROBES = 100
# An index of ~4,000-row partitions (built before PARTITION_ROWS was 1,000, under the old name)
# is searched as it was built to be until the background job replaces it (`plan`: "retrain").
COARSE_PARTITION_ROWS = 4000
COARSE_NPROBES = 40
# Candidates re-scored from the full vectors: refine × the rows asked for, at least MIN_REFINED.
# The 8-bit codes already order the nearest well: at 1M, 2 × (and ≥ 60) gave the same Recall@10
# (0.978, 98 LoCoMo questions) and the same top 10 of the whole search (196 of 196) as 5 × (and
# ≥ 150), for ~3 ms less a search (docs/benchmarks.md, "Issue 16 at 1M: the index path's
# critical path").
REFINE_FACTOR = 2
MIN_REFINED = 60


# A filter term nearly every row meets (one user's archive; "not archived") is checked on the rows
# found rather than before the search: LanceDB's prefilter over a million rows cost ~25 ms a
# query at 1M (docs/benchmarks.md), the check after costs nothing.
BROAD_SHARE = 0.9
SHARE_TTL_S = 60.0
# A prefilter keeping at most this many rows probes further partitions: 40 probes found 0.953 of
# the true top 10 for a 17k-row channel filter at 1M, unbounded probing 1.000 (82 vs 25 ms p50 at
# load 13); scanning just those rows exactly took 252 ms (they are scattered over the whole
# table). docs/benchmarks.md. How much further grows with 1 / the rows kept (narrow.py), up to
# every partition: unbounded probing of a 8,400-row channel cost 42 ms CPU, 286 probes ~20 ms.
NARROW_MAX_ROWS = 30_000


def refine_factor(limit: int) -> int:
    return max(REFINE_FACTOR, -(-MIN_REFINED // max(1, limit)))


# Flat-scanning this many not-yet-indexed rows costs a few ms: refresh beyond it.
REFRESH_UNINDEXED_ROWS = 20_000
RETRAIN_DELTAS = 8  # index segments added by refreshes before training anew
# Bitmaps for columns with few distinct values, B-trees for the rest.
_BITMAP = frozenset({"user_id", "platform", "tier", "archived", "kind"})
_SCALAR = frozenset({"key", "user_id", "platform", "channel", "person", "tier", "timestamp", "archived"})
# k-means rounds when training for a target partition size: at 1M, 20 gave Recall@10 0.964 and 50
# gave 0.973 at 80 probes (the same build time, ~140 s).
_ITERATIONS = 50
# Index types built with a target partition size, which LanceDB records and `optimize` keeps.
_TARGETED = frozenset({"IVF_SQ", "IVF_PQ"})
VECTOR_INDEX = "vector_ivf1k"  # ~PARTITION_ROWS rows a partition
COARSE_INDEX = "vector_idx"  # ~COARSE_PARTITION_ROWS rows a partition (earlier builds)


@dataclass(frozen=True, slots=True)
class AnnStatus:
    rows: int
    indexed_rows: int  # 0 when there is no vector index
    unindexed_rows: int
    segments: int  # index segments (1 after training, +1 per refresh that added rows)
    index_type: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class AnnWork:
    action: str  # "none", "build", "refresh" or "retrain"
    seconds: float
    status: AnnStatus


class AnnIndex:
    def __init__(
        self,
        collection: VectorCollection,
        *,
        min_rows: int = INDEX_MIN_ROWS,
        index_type: str = INDEX_TYPE,
        refresh_unindexed_rows: int = REFRESH_UNINDEXED_ROWS,
    ) -> None:
        self.collection = collection
        self.min_rows = min_rows
        self.index_type = index_type
        self.refresh_unindexed_rows = refresh_unindexed_rows
        self._shares: dict[Term, tuple[float, float]] = {}  # term -> (share of rows, measured at)
        self._counts: dict[Filter, tuple[float, float]] = {}  # narrow filter -> (rows, counted at)
        self._rows: tuple[int, float] | None = None
        self._index: tuple[str | None, float] | None = None  # vector index name, checked at
        self._lock = threading.Lock()

    def search(self, vector: Any, limit: int, where: Filter) -> list[VectorHit]:
        """Top `limit` rows among those `where` keeps: the index (or LanceDB's scan, before there
        is one), selective terms as a prefilter, broad ones checked on the rows found."""
        broad = tuple(t for t in where.terms if self.share(t) >= BROAD_SHARE)
        before = Filter(tuple(t for t in where.terms if t not in broad))
        share = math.prod(self.share(t) for t in broad) if broad else 1.0
        # Ask for enough rows that `limit` are still left after the check.
        fetch = limit if not broad else math.ceil(limit / max(share, BROAD_SHARE**3)) + 5
        coarse = self.vector_index() == COARSE_INDEX
        nprobes, max_nprobes = COARSE_NPROBES if coarse else NPROBES, None
        kept = self.kept_rows(before) if before.terms else None
        if kept is not None and kept <= NARROW_MAX_ROWS:
            # Probe further the fewer rows the filter keeps; every partition (unbounded) when that
            # would reach them all anyway (narrow.py).
            partitions = max(16, self.rows() // (COARSE_PARTITION_ROWS if coarse else PARTITION_ROWS))
            scaled = narrow_probes(kept, partitions, probes=nprobes, narrow_max_rows=NARROW_MAX_ROWS)
            nprobes, max_nprobes = (nprobes, 0) if scaled == 0 else (scaled, scaled)
        hits = self.collection.search(
            vector,
            fetch,
            before,
            nprobes=nprobes,
            refine_factor=refine_factor(fetch),
            after=Filter(broad) if broad else None,
            max_nprobes=max_nprobes,
        )
        return hits[:limit]

    def vector_index(self) -> str | None:
        """The name of the collection's vector index, None without one (remembered for a minute,
        like the row count: a rebuild only changes how many partitions are probed)."""
        now = time.monotonic()
        with self._lock:
            known = self._index
        if known is not None and now - known[1] < SHARE_TTL_S:
            return known[0]
        names = {ix.name for ix in self.collection.table.list_indices()}
        name = next((n for n in (VECTOR_INDEX, COARSE_INDEX) if n in names), None)
        with self._lock:
            self._index = (name, now)
        return name

    def rows(self) -> int:
        """The collection's row count (remembered for a minute, like the shares)."""
        now = time.monotonic()
        with self._lock:
            known = self._rows
        if known is not None and now - known[1] < SHARE_TTL_S:
            return known[0]
        count = int(self.collection.table.count_rows())
        with self._lock:
            self._rows = (count, now)
        return count

    def kept_rows(self, where: Filter) -> float:
        """About how many rows `where` keeps: the product of its terms' shares, and for a narrow
        filter of several terms the count itself (terms are often related: a channel's messages
        are of a few months, so "this channel, since June" may keep none of an estimated 5,000;
        bounded probing would then miss rows that unbounded probing finds)."""
        estimate = self.rows() * math.prod(self.share(t) for t in where.terms)
        if len(where.terms) < 2 or estimate > NARROW_MAX_ROWS:
            return estimate
        now = time.monotonic()
        with self._lock:
            known = self._counts.get(where)
        if known is not None and now - known[1] < SHARE_TTL_S:
            return known[0]
        # ~1.5 ms at 1M (5-8 ms the first time), once a minute per filter.
        count = float(self.collection.table.count_rows(to_lance(where)))
        with self._lock:
            if len(self._counts) > 256:
                self._counts.clear()
            self._counts[where] = (count, now)
        return count

    def share(self, term: Term) -> float:
        """The share of rows `term` keeps (counted by LanceDB, remembered for a minute)."""
        now = time.monotonic()
        with self._lock:
            known = self._shares.get(term)
        if known is not None and now - known[1] < SHARE_TTL_S:
            return known[0]
        total = self.rows()
        kept = int(self.collection.table.count_rows(to_lance(Filter((term,))))) if total else 0
        share = kept / total if total else 0.0
        with self._lock:
            if len(self._shares) > 256:
                self._shares.clear()
            self._shares[term] = (share, now)
        return share

    def status(self) -> AnnStatus:
        table = self.collection.table
        rows = int(table.count_rows())
        name = self._vector_index_now()
        stats = table.index_stats(name) if name is not None else None
        if stats is None:
            return AnnStatus(rows, 0, rows, 0, None)
        return AnnStatus(
            rows,
            int(stats.num_indexed_rows),
            int(stats.num_unindexed_rows),
            int(stats.num_indices or 1),
            str(stats.index_type),
        )

    def plan(self) -> str:
        """What the index needs now: "none", "build", "refresh" or "retrain"."""
        status = self.status()
        if status.index_type is None:
            return "build" if status.rows >= self.min_rows else "none"
        coarse = self._vector_index_now() == COARSE_INDEX
        if status.segments > RETRAIN_DELTAS or coarse or not self.keeps_partitions():
            # Partitions trained on the first rows fit later ones less well: train anew. An index
            # of the earlier, coarser partitions, or one built without its partition size recorded
            # (which `optimize` re-partitions or already has), is trained anew once (~150 s at 1M
            # rows, in the background; searches use it until the new one is there).
            return "retrain"
        return "refresh" if status.unindexed_rows >= self.refresh_unindexed_rows else "none"

    def maintain(self) -> AnnWork:
        """Do what `plan` says (the background job's body; minutes at 1M rows, never on a search)."""
        action = self.plan()
        started = time.perf_counter()
        if action in ("build", "retrain"):
            self.build()
        elif action == "refresh":
            self.refresh()
        return AnnWork(action, time.perf_counter() - started, self.status())

    def build(self) -> None:
        """Train the vector index on every row now stored, and index the prefilter columns."""
        from lancedb.index import Bitmap, BTree, HnswSq, IvfPq, IvfSq

        rows = self.collection.count()
        # ~1,000 rows a partition: a probe reads a small slice (PARTITION_ROWS). Given as the
        # target size, not as a partition count: LanceDB records it in the index, and its
        # `optimize` keeps partitions of that size (it appends new rows as a delta and joins at
        # most one tiny partition). An index given a count instead is re-partitioned by the first
        # `optimize` to LanceDB's own 8,192-row target: at 1M, 1,000 partitions became 73, so 80
        # probes read every row's codes (~3x the CPU a search; docs/benchmarks.md, `opt16`).
        configs = {
            "IVF_PQ": lambda: IvfPq(
                distance_type="cosine",
                target_partition_size=PARTITION_ROWS,
                num_sub_vectors=self.collection.dimensions // 8,
                max_iterations=_ITERATIONS,
            ),
            "IVF_SQ": lambda: IvfSq(
                distance_type="cosine", target_partition_size=PARTITION_ROWS, max_iterations=_ITERATIONS
            ),
            "IVF_HNSW_SQ": lambda: HnswSq(distance_type="cosine", num_partitions=max(1, rows // 100_000)),
        }
        config = configs[self.index_type]()
        table = self.collection.table
        self.collection.maintain(
            lambda: table.create_index("vector", config=config, name=VECTOR_INDEX, replace=True)
        )
        if COARSE_INDEX in {ix.name for ix in table.list_indices()}:
            # Built beside the coarse index, so searches had one all along; now only the new one.
            self.collection.maintain(lambda: table.drop_index(COARSE_INDEX))
        with self._lock:
            self._index = None
        for column in ("key", *self.collection.columns):
            if column in _SCALAR:
                scalar = Bitmap() if column in _BITMAP else BTree()
                self.collection.maintain(
                    lambda c=column, s=scalar: table.create_index(c, config=s, name=f"{c}_idx", replace=True)
                )
        log.info("vector index %s built over %d rows of %s", self.index_type, rows, self.collection.name)

    def refresh(self) -> None:
        """Add rows written since the last build to every index and compact small fragments."""
        self.collection.optimize()

    def keeps_partitions(self) -> bool:
        """Whether LanceDB's `optimize` keeps the vector index's partitions as built: the index
        records our target partition size (see `build`). True without an IVF index to keep."""
        if self.index_type not in _TARGETED:
            return True
        config = next((ix for ix in self.collection.table.list_indices() if ix.name == VECTOR_INDEX), None)
        if config is None:
            return True
        return (config.index_details or {}).get("target_partition_size") == PARTITION_ROWS

    def _vector_index_now(self) -> str | None:
        with self._lock:
            self._index = None
        return self.vector_index()
