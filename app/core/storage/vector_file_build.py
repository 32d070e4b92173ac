"""Build a collection's memory-mapped vector file (`vector_file.py`) from LanceDB, and judge when to.

The build streams the table's keys, row ids and vectors in batches (one read, one version) into a
temporary file, so it holds one batch in memory, not the table. The file is flushed to disk, then,
under the file's lock, the keys deleted since the read are erased in it and it is renamed over the
old one: a deletion either committed before that check (and is erased here) or takes the lock
after the swap (and erases in the new file). Readers in any process see either the old file or
the new, never a part of one.

A file serves the rows whose row id has not changed since it was built; rows added, re-embedded or
rewritten since (a compaction rewrites every row it touches) go to LanceDB. `stale_rows` counts
them; the `vector-files` job rebuilds once they pass `REBUILD_SHARE` of the table.
"""

from __future__ import annotations

import logging
import mmap
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.core.storage.vector_file import (
    MARKER,
    PAGE,
    Header,
    Mapped,
    erase_in,
    file_path,
    locked,
    table_token,
)
from app.core.storage.vector_rowids import integer_keys

log = logging.getLogger(__name__)

# Rebuild once this share of the rows is not served by the file (new, re-embedded, compacted).
REBUILD_SHARE = 0.02
BATCH_ROWS = 32_768  # rows read a batch: ~50 MB of vectors at 384 dimensions
# Keys are message ids; like the row-id map (vector_rowids.py), no file when they are sparse.
_MAX_SLOTS_PER_ROW = 4
_MIN_SLOTS = 1 << 20
_STALE_TEMP_S = 3600.0  # a temporary file this old was left by a build that died


@dataclass(frozen=True, slots=True)
class BuildReport:
    rows: int
    bytes: int
    seconds: float
    cpu_seconds: float
    erased: int  # rows deleted while the file was being written


@dataclass(frozen=True, slots=True)
class FileStatus:
    rows: int  # rows of the table now
    served: int  # of them, rows the file serves (same row id as when it was built)
    bytes: int  # the file's size (0: none)

    @property
    def stale(self) -> int:
        return self.rows - self.served


def marker(table_dir: Path) -> str:
    """The table's token, written on first use (a temporary name renamed into place)."""
    token = table_token(table_dir)
    if token is not None:
        return token
    temp = table_dir / f".{MARKER}.{os.getpid()}.tmp"
    temp.write_text(secrets.token_hex(16))
    os.replace(temp, table_dir / MARKER)
    return table_token(table_dir) or ""


def build(table: Any, table_dir: Path, directory: Path, name: str, dimensions: int) -> BuildReport | None:
    """Write the file of collection `name` from `table` and swap it in; None when its keys are not
    small integers (chunks, summaries: those collections are small and keep the LanceDB path)."""
    started, cpu = time.perf_counter(), time.process_time()
    directory.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(directory)
    token = marker(table_dir)
    path = file_path(directory, name)
    temp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        written = _write(table, temp, dimensions, token)
        if written is None:
            return None
        header, keys = written
        with locked(path):
            # Keys deleted since the read: erased before the file is visible to anyone.
            gone = np.setdiff1d(keys, _current_keys(table), assume_unique=False)
            erased = 0
            if len(gone):
                with open(temp, "r+b") as handle:
                    data = mmap.mmap(handle.fileno(), 0)
                    try:
                        erased = erase_in(data, header, [int(k) for k in gone])
                        data.flush()
                    finally:
                        data.close()
                    os.fsync(handle.fileno())
            os.replace(temp, path)
            _fsync_dir(directory)
    finally:
        temp.unlink(missing_ok=True)
    report = BuildReport(
        header.rows, header.size, time.perf_counter() - started, time.process_time() - cpu, erased
    )
    log.info(
        "vector file of %s: %d rows, %.0f MB in %.1f s (%.1f s CPU)",
        name,
        report.rows,
        report.bytes / 1e6,
        report.seconds,
        report.cpu_seconds,
    )
    return report


def _write(table: Any, temp: Path, dimensions: int, token: str) -> tuple[Header, np.ndarray] | None:
    """Stream the table into `temp`: vectors first, then row ids and positions, the header last."""
    version = int(table.version)
    query = table.search().select(["key", "vector"]).with_row_id(True).limit(None)
    keys: list[np.ndarray] = []
    rowids: list[np.ndarray] = []
    with open(temp, "wb") as out:
        out.write(b"\0" * PAGE)
        for batch in query.to_batches(BATCH_ROWS):
            if batch.num_rows == 0:
                continue
            batch_keys = integer_keys(batch.column("key"))
            if batch_keys is None:
                return None
            keys.append(batch_keys)
            rowids.append(batch.column("_rowid").to_numpy().astype(np.int64))
            vectors = np.asarray(batch.column("vector").flatten(), dtype=np.float32)
            if vectors.size != batch.num_rows * dimensions:
                raise ValueError(f"vectors of {dimensions} dimensions expected")
            out.write(vectors.tobytes())
        all_keys = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        if len(all_keys) == 0 or all_keys.min() < 0:
            return None
        if all_keys.max() >= min(2**31 - 1, max(_MIN_SLOTS, _MAX_SLOTS_PER_ROW * len(all_keys))):
            return None  # sparse keys: the key -> position array would be too large
        header = Header.layout(len(all_keys), dimensions, int(all_keys.max()) + 1, token, version)
        positions = np.full(header.slots, -1, np.int32)
        positions[all_keys] = np.arange(len(all_keys), dtype=np.int32)
        out.seek(header.rowids_at)
        out.write(np.concatenate(rowids).tobytes())
        out.seek(header.positions_at)
        out.write(positions.tobytes())
        out.seek(0)
        out.write(header.encode())
        out.flush()
        os.fsync(out.fileno())
    return header, all_keys


def status(table: Any, directory: Path, name: str, table_dir: Path) -> FileStatus:
    """How many of the table's rows the file serves now (reads the key and row-id columns)."""
    path = file_path(directory, name)
    data = table.search().select(["key"]).with_row_id(True).limit(None).to_arrow()
    try:
        mapped = Mapped(path)
    except (OSError, ValueError):
        return FileStatus(len(data), 0, 0)
    if len(data) == 0 or mapped.header.token != table_token(table_dir):
        return FileStatus(len(data), 0, mapped.header.size)
    keys = integer_keys(data.column("key"))
    if keys is None:
        return FileStatus(len(data), 0, mapped.header.size)
    ids = data.column("_rowid").to_numpy().astype(np.int64)
    inside = (keys >= 0) & (keys < len(mapped.positions))
    at = np.full(len(keys), -1, np.int64)
    at[inside] = mapped.positions[keys[inside]]
    hit = at >= 0
    hit[hit] = mapped.rowids[at[hit]] == ids[hit]
    return FileStatus(len(data), int(hit.sum()), mapped.header.size)


def due(state: FileStatus) -> bool:
    """Whether the file serves too few of the rows to be worth keeping as it is."""
    return state.rows > 0 and state.stale > REBUILD_SHARE * state.rows


def _current_keys(table: Any) -> np.ndarray:
    data = table.search().select(["key"]).limit(None).to_arrow()
    return pc.cast(data.column("key"), pa.int64()).to_numpy()


def _remove_stale_temps(directory: Path) -> None:
    now = time.time()
    for item in directory.glob("*.tmp-*"):
        try:
            if now - item.stat().st_mtime > _STALE_TEMP_S:
                item.unlink()
        except OSError:
            continue


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
