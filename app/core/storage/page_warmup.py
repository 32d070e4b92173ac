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
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
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
) -> Warmed:
    """Read `paths` (most useful first) into the page cache, `budget_bytes` at most in all.

    A file that does not fit the rest of the budget is skipped, not cut: its pages are read at
    random places, so a prefix helps no search more than the next file would."""
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
            done += _read_ahead(path, size, chunk_bytes, stop)
        except OSError as exc:  # only a speed-up: the searches read what they need themselves
            log.info("could not read %s ahead: %s", path, exc)
            continue
        files += 1
    return Warmed(files, done, time.perf_counter() - started)


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
