"""A collection's stored vectors in a memory-mapped float32 file, read by key instead of a LanceDB take.

Above the in-memory limit a search reads ~250 stored vectors (keyword candidates, conversation
windows: `app/core/search/stored_windows.py`). A LanceDB take by row id costs ~6 ms fixed plus
~50 µs a row at 1M rows (300 rows: 21 ms CPU); the same rows from a mapped file cost ~1.5 ms
(docs/benchmarks.md, "1M: stored vectors from a memory-mapped file").

One file per collection (`<vectors>.mmap/<collection>.f32`, built by `vector_file_build.py`):

    page 0      magic + JSON header (rows, dimensions, slots, table token, version, offsets)
    vectors     float32 [rows, dimensions]: row = position, as LanceDB stored them
    rowids      int64 [rows]: the LanceDB row id each position was read from (-1: erased)
    positions   int32 [slots]: message id -> position (-1: none)

**A vector is served only if it is still the stored one.** LanceDB's row id names one physical
row (fragment << 32 | offset): fragments are immutable and their ids never reused, and every
write that changes a row (upsert, column update, compaction) gives it a new id. So a key is
served from the file only when the row id it has at the table's current version (the row-id map,
`vector_rowids.py`) equals the one stored for it here; anything else goes to LanceDB. A table
dropped and made again restarts its row ids, which could then match: the file records the token
of a marker file kept inside the table's own directory (`vector_file_build.marker`), which
leaves with the directory, and a file whose token is not the table's serves nothing.

**A deleted vector leaves at once** (`erase`): its row id is set to -1, then its bytes to zero,
in place, under the file's lock, and flushed to disk. Other processes map the same file shared,
so they see the change at once; a reader re-checks a row's id after copying its vector and
drops a row erased meanwhile. Files are replaced only by an atomic rename (`vector_file_build`),
and a reader re-maps when the path names another file, so no reader keeps an old one for long.
"""

from __future__ import annotations

import json
import mmap
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"STRATA-VECTORS/1\n"
PAGE = 4096
SUFFIX = ".f32"


@dataclass(frozen=True, slots=True)
class Header:
    rows: int
    dimensions: int
    slots: int  # length of the key -> position array (largest key + 1)
    token: str  # the table's marker token when the file was built
    version: int  # the table version read (for reports; validity is per row id)
    vectors_at: int
    rowids_at: int
    positions_at: int

    @staticmethod
    def layout(rows: int, dimensions: int, slots: int, token: str, version: int) -> Header:
        vectors_at = PAGE
        rowids_at = _aligned(vectors_at + rows * dimensions * 4)
        positions_at = _aligned(rowids_at + rows * 8)
        return Header(rows, dimensions, slots, token, version, vectors_at, rowids_at, positions_at)

    @property
    def size(self) -> int:
        return self.positions_at + self.slots * 4

    def encode(self) -> bytes:
        body = MAGIC + json.dumps(asdict(self)).encode() + b"\n"
        if len(body) > PAGE:
            raise ValueError("vector file header too long")
        return body.ljust(PAGE, b"\0")

    @staticmethod
    def decode(page: bytes) -> Header | None:
        """The header of a file (None: not a vector file, or one of another format)."""
        if not page.startswith(MAGIC):
            return None
        try:
            fields = json.loads(page[len(MAGIC) :].split(b"\n", 1)[0])
            return Header(**fields)
        except (ValueError, TypeError):
            return None


def _aligned(offset: int) -> int:
    return -(-offset // PAGE) * PAGE


def file_path(directory: Path, collection: str) -> Path:
    return directory / f"{collection}{SUFFIX}"


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """The file's write lock (a lock file beside it): erasing and swapping never interleave."""
    import fcntl  # POSIX only: the store keeps no vector files elsewhere (VectorStore.files)

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Mapped:
    """One file mapped read-only (shared: other processes' in-place erasures show at once)."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            header = Header.decode(handle.read(PAGE))
            if header is None or stat.st_size < header.size:
                raise ValueError(f"{path} is not a complete vector file")
            self._map = mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ)
        # Random reads: no read-ahead, and as little mapped around each read as the kernel allows
        # (large page-cache folios still map whole: ~30k scattered vectors at 1M rows showed
        # ~1.3 GB of the 1.5 GB file in RSS with these, 1.5 GB without; docs/benchmarks.md).
        for advice in ("MADV_RANDOM", "MADV_NOHUGEPAGE"):  # Linux has both, macOS the first
            if hasattr(mmap, advice):
                self._map.madvise(getattr(mmap, advice))
        self.identity = (stat.st_dev, stat.st_ino)
        self.header = h = header
        self.vectors = np.frombuffer(self._map, np.float32, h.rows * h.dimensions, h.vectors_at).reshape(
            h.rows, h.dimensions
        )
        self.rowids = np.frombuffer(self._map, np.int64, h.rows, h.rowids_at)
        self.positions = np.frombuffer(self._map, np.int32, h.slots, h.positions_at)


class VectorFile:
    """A collection's vector file as seen by one process: mapped on first use, re-mapped when the
    path names a new file, unmapped by `release` (idle release)."""

    def __init__(self, path: Path, table_dir: Path) -> None:
        self.path = path
        self.table_dir = table_dir
        self._mapped: Mapped | None = None
        self._lock = threading.Lock()
        self.served = 0  # vectors served from the file (tests, benchmarks)

    def current(self) -> Mapped | None:
        """The file as it is now (None: no file, or one of another table)."""
        try:
            stat = os.stat(self.path)
        except OSError:
            self.release()
            return None
        with self._lock:
            mapped = self._mapped
            if mapped is None or mapped.identity != (stat.st_dev, stat.st_ino):
                try:
                    mapped = Mapped(self.path)
                except (OSError, ValueError):
                    self._mapped = None
                    return None
                self._mapped = mapped
        if mapped.header.token != table_token(self.table_dir):
            return None  # built for a table that was dropped since (its row ids start again)
        return mapped

    def take(self, wanted: Mapping[str, int], dimensions: int) -> dict[str, np.ndarray]:
        """The vectors of those keys (key -> its row id now) whose stored row is still that row."""
        mapped = self.current()
        if mapped is None or not wanted or mapped.header.dimensions != dimensions:
            return {}
        keys = list(wanted)
        ids = np.fromiter((int(k) for k in keys), np.int64, len(keys))
        rowids = np.fromiter(wanted.values(), np.int64, len(keys))
        inside = ids < len(mapped.positions)
        at = np.full(len(keys), -1, np.int64)
        at[inside] = mapped.positions[ids[inside]]
        hit = at >= 0
        hit[hit] = mapped.rowids[at[hit]] == rowids[hit]
        rows = at[hit]
        vectors = mapped.vectors[rows]  # a copy: fancy indexing
        # Erased meanwhile (its id is set to -1 before its bytes are zeroed): not served.
        still = mapped.rowids[rows] == rowids[hit]
        chosen = [k for k, h in zip(keys, hit, strict=True) if h]
        out = {k: vectors[i] for i, k in enumerate(chosen) if still[i]}
        self.served += len(out)
        return out

    def release(self) -> bool:
        """Unmap the file (the next use maps it again); whether one was mapped."""
        # Not closed here: a search in another thread may be reading it. The map is unmapped
        # when its last reference goes (CPython frees the arrays, then the mmap object).
        with self._lock:
            mapped, self._mapped = self._mapped, None
        return mapped is not None

    def remove(self) -> None:
        """Delete the file (a dropped collection, or doctor --repair before a rebuild)."""
        self.release()
        with locked(self.path):
            self.path.unlink(missing_ok=True)


def erase(path: Path, keys: Sequence[str]) -> int:
    """Zero the vectors of `keys` in the file in place (a deletion); the count erased."""
    ids = [int(k) for k in keys if k.isdigit() and str(int(k)) == k]
    # No directory: no build ever started, and one starting now reads the keys after this
    # deletion. Otherwise the check for the file comes under the lock, after any swap.
    if not ids or not path.parent.is_dir():
        return 0
    with locked(path):
        if not path.exists():
            return 0
        with open(path, "r+b") as handle:
            header = Header.decode(handle.read(PAGE))
            if header is None:
                return 0
            data = mmap.mmap(handle.fileno(), 0)
            try:
                erased = erase_in(data, header, ids)
                data.flush()
            finally:
                data.close()
            os.fsync(handle.fileno())
    return erased


def erase_in(buffer: Any, header: Header, ids: Sequence[int]) -> int:
    """Erase `ids` in a writable buffer of a whole file (the build uses it before its swap)."""
    positions = np.frombuffer(buffer, np.int32, header.slots, header.positions_at)
    rowids = np.frombuffer(buffer, np.int64, header.rows, header.rowids_at)
    vectors = np.frombuffer(buffer, np.float32, header.rows * header.dimensions, header.vectors_at)
    vectors = vectors.reshape(header.rows, header.dimensions)
    erased = 0
    for key in ids:
        at = int(positions[key]) if 0 <= key < header.slots else -1
        if at < 0:
            continue
        rowids[at] = -1  # first: a reader that already matched the id drops the row
        vectors[at] = 0.0
        positions[key] = -1
        erased += 1
    del positions, rowids, vectors
    return erased


def table_token(table_dir: Path) -> str | None:
    """The token of the table's marker file (None: none yet)."""
    try:
        return (table_dir / MARKER).read_text().strip() or None
    except OSError:
        return None


# Kept inside the LanceDB table's directory, so it goes when the table goes (LanceDB's cleanup
# leaves files it does not know alone; tested).
MARKER = "strata-vector-file.token"
