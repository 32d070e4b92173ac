"""LanceDB vector collections: one table per (record kind, embedding model, dimensions).

A collection never mixes models: its name carries the model id and the dimension count, so a
model change means a new table filled by re-embedding, not mixed vectors. Rows carry the
metadata columns needed for prefiltering; SQLite stays the source of truth.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import lancedb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.core.errors import StorageError
from app.core.index.filters import Filter, OneOf, to_lance, to_mask
from app.core.storage import faults
from app.core.storage.vector_file import VectorFile, erase, file_path
from app.core.storage.vector_rowids import RowIds
from app.core.storage.vector_rowids_file import Saved, rowids_path

log = logging.getLogger(__name__)
T = TypeVar("T")
# How long `vectors_of` trusts the table version it last asked for. With strong read consistency
# asking reads the latest manifest, through LanceDB's event-loop thread and back: ~0.1 ms alone,
# but a search asked 3-5 times, on both of its threads, and each took 3-4 ms of wall time at 1M
# while the other thread held the GIL (docs/benchmarks.md, `p50n`). This process's writes make it
# ask at once; another process's commit is seen this much later, as the in-memory copy and the
# faiss leg see it (both 0.25 s).
RECENT_VERSION_S = 0.25
KEEP_VERSIONS = timedelta(days=36500)  # an age no version reaches: compaction without pruning

# Column name -> arrow type for the prefilter columns a collection may declare.
COLUMN_TYPES: dict[str, pa.DataType] = {
    "user_id": pa.string(),
    "platform": pa.string(),
    "channel": pa.string(),
    "person": pa.string(),
    "tier": pa.string(),
    "timestamp": pa.int64(),
    "archived": pa.bool_(),
    "content_hash": pa.string(),
    "document_id": pa.string(),
    "kind": pa.string(),
}


def collection_name(kind: str, model_id: str, dimensions: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", model_id.lower()).strip("_")
    return f"{kind}__{slug}__{dimensions}"


@dataclass(frozen=True, slots=True)
class Change:
    """One successful write of this process, told to the in-memory copies so they follow it
    without reloading. `version` is the table version the write made (None if unknown);
    `before` is set for maintenance (compaction, index work), which keeps every row as it was."""

    op: str  # "upsert", "update", "delete" or "maintain"
    keys: Sequence[str] = ()
    vectors: np.ndarray | None = None
    rows: Sequence[dict[str, Any]] = ()
    values: dict[str, Any] | None = None
    version: int | None = None
    before: int | None = None


@dataclass(frozen=True, slots=True)
class VectorHit:
    key: str
    similarity: float  # cosine similarity in [-1, 1]


class VectorCollection:
    """Upsert, delete and search vectors keyed by a string `key`."""

    def __init__(self, store: VectorStore, name: str, dimensions: int, columns: Sequence[str]) -> None:
        self._store = store
        self.name = name
        self.dimensions = dimensions
        self.columns = tuple(columns)
        fields = [pa.field("key", pa.string())]
        fields += [pa.field(c, COLUMN_TYPES[c]) for c in self.columns]
        fields.append(pa.field("vector", pa.list_(pa.float32(), dimensions)))
        self.schema = pa.schema(fields)
        self._table: Any = None
        # Writes made through this object (this process): an in-memory copy reloads at once after
        # them, and only lazily after other processes' commits (see vector_cache).
        self.local_writes = 0
        self._listeners: list[Callable[[Change], None]] = []
        # (version, when asked, writes told by then): `recent_version`.
        self._recent: tuple[int, float, int] | None = None
        self._writes_told = 0
        # The stored vectors as a memory-mapped file, where one was built (vector_file.py).
        self.file = VectorFile(file_path(store.files, name), self.path) if store.files else None
        self._rowids = self._new_rowids()

    @property
    def path(self) -> Path:
        """The table's directory (LanceDB names it after the table)."""
        return self._store.path / f"{self.name}.lance"

    def listen(self, listener: Callable[[Change], None]) -> None:
        """Call `listener` after each successful write made through this object."""
        self._listeners.append(listener)

    def _told(self, change: Change) -> None:
        self._writes_told += 1
        self._recent = None
        for listener in self._listeners:
            try:
                listener(change)
            except Exception:  # a copy that cannot follow reloads later; the write itself stood
                log.warning("a vector copy could not follow a write to %s", self.name, exc_info=True)

    @property
    def exists(self) -> bool:
        """Whether the table is there, without creating it (reads must not write: a full disk)."""
        if self._table is not None:
            return True
        try:
            self._table = self._store.connection.open_table(self.name)
        except (OSError, RuntimeError, ValueError):  # LanceDB: "Table '…' was not found"
            return False
        return True

    @property
    def table(self) -> Any:
        # A local: an idle release in another thread may reset `_table` between the two lines.
        table = self._table
        if table is None:
            table = self._store.retry(
                lambda: self._store.connection.create_table(self.name, schema=self.schema, exist_ok=True)
            )
            self._table = table
        return table

    def release(self) -> None:
        """Forget the open table and the row-id map (idle release); the next use reopens them."""
        self._table = None
        self._recent = None
        self._rowids = self._new_rowids()  # the old map's saved pages are unmapped with it
        if self.file is not None:
            self.file.release()

    def _new_rowids(self) -> RowIds:
        """An empty row-id map; saved beside the vector file where the store keeps one."""
        if self.file is None:
            return RowIds()
        return RowIds(saved=Saved(rowids_path(self.file.path), self.path))

    def upsert(self, keys: Sequence[str], vectors: np.ndarray, rows: Sequence[dict[str, Any]]) -> None:
        """Insert or replace vectors; `rows[i]` holds the prefilter column values for `keys[i]`."""
        if not keys:
            return
        if vectors.shape != (len(keys), self.dimensions):
            raise StorageError(f"vector shape {vectors.shape} does not fit collection {self.name}")
        data: dict[str, Any] = {"key": list(keys)}
        for column in self.columns:
            data[column] = [row.get(column) for row in rows]
        data["vector"] = pa.FixedSizeListArray.from_arrays(
            pa.array(vectors.astype(np.float32).ravel()), self.dimensions
        )
        batch = pa.table(data, schema=self.schema)
        self.local_writes += 1
        result = self._store.retry(
            lambda: (
                self.table.merge_insert("key")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .execute(batch)
            )
        )
        self._told(
            Change("upsert", list(keys), vectors.astype(np.float32), list(rows), version=_version(result))
        )

    def update_columns(self, keys: Sequence[str], values: dict[str, Any]) -> None:
        """Change prefilter columns of `keys` in place (e.g. tier or archived) without re-embedding."""
        unknown = set(values) - set(self.columns)
        if unknown:
            raise StorageError(f"collection {self.name} has no column(s) {sorted(unknown)}")
        for start in range(0, len(keys), 500):
            where = to_lance(Filter((OneOf("key", tuple(keys[start : start + 500])),)))
            self.local_writes += 1
            result = self._store.retry(partial(self.table.update, where=where, values=values))
            self._told(
                Change("update", keys[start : start + 500], values=dict(values), version=_version(result))
            )

    def delete(self, keys: Sequence[str]) -> None:
        for start in range(0, len(keys), 500):
            where = to_lance(Filter((OneOf("key", tuple(keys[start : start + 500])),)))
            self.local_writes += 1
            result = self._store.retry(partial(self.table.delete, where))
            self._erase_from_file(keys[start : start + 500])
            self._told(Change("delete", keys[start : start + 500], version=_version(result)))

    def _erase_from_file(self, keys: Sequence[str]) -> None:
        """A deleted vector leaves the mapped file with the LanceDB row (zeroed in place); a file
        that cannot be written is removed instead, never left holding it."""
        if self.file is None:
            return
        try:
            erase(self.file.path, keys)
        except OSError:
            log.warning("could not erase from %s; removing the file", self.file.path, exc_info=True)
            try:
                self.file.remove()
            except OSError as exc:
                raise faults.from_os_error(exc, self.file.path) or StorageError(
                    f"deleted vectors may remain in {self.file.path}: {exc}; delete that file"
                ) from exc

    def search(
        self,
        vector: np.ndarray,
        limit: int,
        where: Filter | None = None,
        *,
        nprobes: int | None = None,
        refine_factor: int | None = None,
        after: Filter | None = None,
        max_nprobes: int | None = None,
    ) -> list[VectorHit]:
        """LanceDB's own prefiltered search; the typed filter is compiled here, never by callers.

        Without a vector index it is an exact scan; with one (`app/core/index/ann.py`) it probes
        `nprobes` partitions and re-scores `refine_factor` × `limit` candidates from the stored
        vectors, and rows the index does not cover yet are scanned in full beside it. `after`
        terms are checked on the rows found instead of before the search (for terms nearly every
        row meets, where a prefilter costs more than it saves); fewer than `limit` may remain.
        `max_nprobes` (0: no bound) lets a narrow prefilter probe further until `limit` rows match."""
        query = self.table.search(vector.astype(np.float32)).distance_type("cosine").limit(limit)
        if nprobes is not None:
            query = query.nprobes(nprobes)
        if max_nprobes is not None:
            query = query.maximum_nprobes(max_nprobes)
        if refine_factor is not None:
            query = query.refine_factor(refine_factor)
        expression = to_lance(where) if where is not None else None
        if expression:
            query = query.where(expression, prefilter=True)
        later = sorted(after.columns) if after is not None and after.terms else []
        data = query.select(["key", "_distance", *later]).to_arrow()
        keep = np.ones(len(data), dtype=bool)
        if after is not None and later:
            keep = to_mask(after, {c: arrow_column(data.column(c)) for c in later}, len(data))
        keys = data.column("key").to_pylist()
        distances = data.column("_distance").to_pylist()
        return [
            VectorHit(key=k, similarity=1.0 - float(d))
            for k, d, kept in zip(keys, distances, keep, strict=True)
            if kept
        ]

    def vectors_of(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of `keys` (those that have one): by row id where the row map serves
        (vector_rowids.py), from the memory-mapped file for rows it holds unchanged
        (vector_file.py), else from LanceDB; the rest through the B-tree on `key`."""
        if not keys:
            return {}
        stored = self.file.take if self.file is not None else None
        try:
            served, settled = self._rowids.take(
                self.table, keys, self.dimensions, stored, version=self.recent_version()
            )
        except Exception:  # only a shortcut: the key filter below gives the same vectors
            log.warning("row-id lookup failed on %s; using the key filter", self.name, exc_info=True)
            served, settled = {}, set()
        rest = [k for k in keys if k not in settled]
        return {**served, **self._by_key(rest)} if rest else served

    def recent_version(self) -> int:
        """The table version, asked at most every RECENT_VERSION_S; at once after this process's
        own writes (a write told while asking is not cached over)."""
        recent, told = self._recent, self._writes_told
        now = time.monotonic()
        if recent is not None and recent[2] == told and now - recent[1] < RECENT_VERSION_S:
            return recent[0]
        version = int(self.table.version)
        if self._writes_told == told:
            self._recent = (version, now, told)
        return version

    def _by_key(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        if not keys:
            return {}
        where = to_lance(Filter((OneOf("key", tuple(keys)),)))
        data = self.table.search().where(where).select(["key", "vector"]).limit(len(keys)).to_arrow()
        flat = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32)
        matrix = flat.reshape(len(data), self.dimensions)
        return dict(zip(data.column("key").to_pylist(), matrix, strict=True))

    def keys(self) -> list[str]:
        """Every stored key (reads the key column only, not the vectors)."""
        if self.count() == 0:
            return []
        return self.table.search().select(["key"]).limit(None).to_arrow().column("key").to_pylist()

    def count(self) -> int:
        return int(self.table.count_rows())

    def optimize(self) -> None:
        """Compact fragments left by many small upserts (keeps search fast); old versions stay.

        LanceDB's own default drops versions *committed* a week ago, even one that stopped being
        the latest a moment ago and a search may be reading: `vector_prune` drops them instead."""
        self.maintain(lambda: self.table.optimize(cleanup_older_than=KEEP_VERSIONS))

    def maintain(self, work: Callable[[], T]) -> T:
        """Run work that rewrites files but keeps every row (compaction, index building)."""
        before = self.table.version
        self.local_writes += 1
        result = self._store.retry(work)
        self._told(Change("maintain", version=self.table.version, before=before))
        return result

    def purge_history(self) -> None:
        """Compact, then drop every old version: LanceDB keeps deleted rows in older fragments.

        Unverified files (another process's commit in flight) are left alone; they hold new rows.
        A reader pinned to an old version fails once and retries on the latest (consistency
        interval 0), which is why LanceDB's warning about it is silenced here.
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self.maintain(lambda: self.table.optimize(cleanup_older_than=timedelta(0)))

    def version_count(self) -> int:
        return len(self.table.list_versions())


def arrow_column(values: Any) -> np.ndarray:
    """Strings as fixed-width unicode (vectorized comparisons), nulls as "" / 0 / False."""
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        return np.asarray(pc.fill_null(values, "").to_numpy(zero_copy_only=False), dtype=str)
    if pa.types.is_boolean(values.type):
        return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)
    return pc.fill_null(values, 0).to_numpy(zero_copy_only=False)


def _version(result: Any) -> int | None:
    """The table version a LanceDB write result reports (None when it reports none)."""
    version = getattr(result, "version", None)
    return int(version) if isinstance(version, int) else None


class VectorStore:
    """The LanceDB directory of one data dir.

    LanceDB keeps decoded index partitions and file metadata in its session's caches for as long
    as the connection lives (by default up to 6 GB and 1 GB): at 1M messages ~400 MB after a few
    searches. They are bounded here, and `release` drops the connection, its tables and caches
    (idle release); the next use opens them again."""

    def __init__(
        self,
        path: Path,
        *,
        index_cache_mb: int = 512,
        metadata_cache_mb: int = 128,
        vector_files: bool = True,
    ) -> None:
        self.path = path
        # Memory-mapped copies of large collections' vectors (vector_file.py), beside the tables:
        # derived data, rebuilt from them, never in a backup. None: not used. POSIX only: Windows
        # cannot rename a file over one another process has mapped, which the swap relies on.
        self.files: Path | None = path.with_suffix(".mmap") if vector_files and os.name == "posix" else None
        self.index_cache_mb = index_cache_mb
        self.metadata_cache_mb = metadata_cache_mb
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise faults.from_os_error(exc, path) or StorageError(str(exc)) from exc
        self._connection: Any = None
        self._session: Any = None
        self._lock = threading.Lock()
        self._collections: dict[str, VectorCollection] = {}
        self.connection  # noqa: B018  # open now: a data dir LanceDB cannot open fails at start-up

    @property
    def connection(self) -> Any:
        connection = self._connection
        if connection is None:
            with self._lock:
                if self._connection is None:
                    mb = 1 << 20
                    self._session = lancedb.Session(
                        index_cache_size_bytes=self.index_cache_mb * mb,
                        metadata_cache_size_bytes=self.metadata_cache_mb * mb,
                    )
                    # Consistency interval 0: every read sees other processes' commits.
                    self._connection = lancedb.connect(
                        str(self.path), read_consistency_interval=timedelta(0), session=self._session
                    )
                connection = self._connection
        return connection

    def cache_bytes(self) -> int:
        """What LanceDB's index and metadata caches of this store hold now (0 when closed)."""
        session = self._session
        return int(session.size_bytes) if session is not None else 0

    def release(self) -> int:
        """Close the connection and every open table with their caches (reopened at the next use);
        returns the bytes the caches held. A call in flight keeps its own table and finishes."""
        with self._lock:
            held = self.cache_bytes()
            for collection in list(self._collections.values()):
                collection.release()
            self._connection, self._session = None, None
        return held

    def collection(
        self, kind: str, model_id: str, dimensions: int, columns: Sequence[str] = ()
    ) -> VectorCollection:
        name = collection_name(kind, model_id, dimensions)
        existing = self._collections.get(name)
        if existing is None:
            existing = VectorCollection(self, name, dimensions, columns)
            self._collections[name] = existing
        return existing

    def drop(self, kind: str, model_id: str, dimensions: int) -> None:
        """Remove a whole collection (a model no longer in use after a completed switch)."""
        name = collection_name(kind, model_id, dimensions)
        dropped = self._collections.pop(name, None)
        if dropped is not None and dropped.file is not None:
            dropped.file.remove()
        elif self.files is not None:
            file_path(self.files, name).unlink(missing_ok=True)
        if self.files is not None:  # its saved row-id map (vector_rowids_file.py)
            rowids_path(file_path(self.files, name)).unlink(missing_ok=True)
        # The local connection takes `ignore_missing`; the base class's signature does not name it.
        self.retry(lambda: self.connection.drop_table(name, ignore_missing=True))  # type: ignore[call-arg]

    def retry(self, work: Callable[[], T], attempts: int = 6) -> T:
        """LanceDB commits are optimistic: another writer may win; retry with backoff."""
        for attempt in range(attempts):
            try:
                return work()
            except (OSError, RuntimeError, ValueError) as exc:
                message = str(exc).lower()
                retryable = "conflict" in message or "commit" in message or "retry" in message
                if not retryable or attempt == attempts - 1:
                    # LanceDB reports a full disk in varied wrappers; the free space says it plainly.
                    if faults.disk_is_full(self.path):
                        raise faults.disk_full(self.path) from exc
                    raise StorageError(f"vector index operation failed: {exc}") from exc
                log.info("lancedb commit conflict, retrying (%s)", exc)
                time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")
