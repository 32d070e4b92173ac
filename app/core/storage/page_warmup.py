"""Read a large archive's search files into the page cache in the background, after opening.

At 1M messages a search reads scattered pages of the faiss index (80 of its 1,000 partitions),
of the vectors' memory-mapped file (~300 rows) and of SQLite (the FTS postings, the candidates'
rows and turns). When those pages are not in the page cache (after a reboot, or once other work
evicted them) each is a disk read: the first 98 LoCoMo questions at 1M took p50 173 ms instead
of 66 (load 16), with 45,681 major page faults (docs/benchmarks.md, "1M: p50 margin"). Reading the
files ahead, in file order, costs a few seconds of sequential disk I/O and little CPU, and the
searches that follow find their pages resident.

The files are read in chunks in priority order, at most `budget_bytes` in all: where the kernel
can (`posix_fadvise(WILLNEED)`: it schedules the reads itself, no copy into this process), else
by reading into one reused buffer. Nothing waits for it: a search during the warm-up reads what
it needs as it would have, and `stop` ends it between two chunks.

SQLite's database file is never opened here (`locked`): POSIX record locks belong to the process
and inode, so closing *any* descriptor of the file drops every lock SQLite holds on it. In WAL
mode a connection keeps a shared lock on the database file for as long as it is open; without it,
the next process that closes its last connection (a search worker stopping, a CLI command, a
stdio MCP server) takes the exclusive lock, checkpoints and deletes the WAL and its index while
this process still writes to them: its later commits went to a deleted file and SQLite reported
"disk I/O error" and then "database disk image is malformed" (a 1M soak, docs/benchmarks.md,
"mem1m"). Such a file is read ahead through the descriptor SQLite itself holds (Linux), or not at
all.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

CHUNK_BYTES = 8 << 20  # between two chunks a stop request is seen, and other I/O gets its turn


@dataclass(frozen=True, slots=True)
class Warmed:
    files: int  # files read (wholly or up to the budget)
    bytes: int  # bytes asked of the disk
    seconds: float


def warm_files(
    paths: Sequence[Path],
    *,
    budget_bytes: int,
    stop: threading.Event | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    locked: Collection[Path] = (),
) -> Warmed:
    """Read `paths` (most useful first) into the page cache, `budget_bytes` at most in all.

    A file that does not fit the rest of the budget is skipped, not cut: its pages are read at
    random places, so a prefix helps no search more than the next file would. Files in `locked`
    (SQLite's database, whose locks a close would drop) are never opened: they are advised
    through a descriptor this process already holds, or skipped."""
    started = time.perf_counter()
    done = files = 0
    for path in paths:
        if stop is not None and stop.is_set():
            break
        try:
            size = path.stat().st_size
        except OSError:
            continue  # gone meanwhile (a new generation replaced it): nothing to read
        if size == 0 or done + size > budget_bytes:
            continue
        try:
            if path in locked:
                held = held_descriptor(path)
                if held is None or not hasattr(os, "posix_fadvise"):
                    log.info("%s is not read ahead: no descriptor of it to advise through", path)
                    continue
                done += _advise(held, size, chunk_bytes, stop)
            else:
                done += _read_ahead(path, size, chunk_bytes, stop)
        except OSError as exc:  # only a speed-up: the searches read what they need themselves
            log.info("could not read %s ahead: %s", path, exc)
            continue
        files += 1
    return Warmed(files, done, time.perf_counter() - started)


def held_descriptor(path: Path) -> int | None:
    """A descriptor of `path` this process already has open, found without opening the file
    (Linux `/proc/self/fd`; None elsewhere or when there is none)."""
    try:
        wanted = path.stat()
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        try:
            found = os.stat(f"/proc/self/fd/{name}")  # the open file's own status; opens nothing
        except OSError:
            continue  # closed meanwhile, or the listing's own descriptor
        if (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino):
            return int(name)
    return None


def _advise(fd: int, size: int, chunk_bytes: int, stop: threading.Event | None) -> int:
    """WILLNEED over a descriptor owned by someone else: it is never read from or closed here.

    Should its owner close it meanwhile and the number be reused, the advice only reads another
    file's pages into the cache."""
    offset = 0
    while offset < size:
        if stop is not None and stop.is_set():
            break
        length = min(chunk_bytes, size - offset)
        os.posix_fadvise(fd, offset, length, os.POSIX_FADV_WILLNEED)
        offset += length
    return offset


def _read_ahead(path: Path, size: int, chunk_bytes: int, stop: threading.Event | None) -> int:
    advise = getattr(os, "posix_fadvise", None)  # not on macOS or Windows
    buffer = memoryview(bytearray(chunk_bytes)) if advise is None else None
    with path.open("rb", buffering=0) as file:
        offset = 0
        while offset < size:
            if stop is not None and stop.is_set():
                break
            length = min(chunk_bytes, size - offset)
            if advise is not None:
                advise(file.fileno(), offset, length, os.POSIX_FADV_WILLNEED)
            else:
                assert buffer is not None
                file.seek(offset)
                file.readinto(buffer[:length])
            offset += length
        return offset
