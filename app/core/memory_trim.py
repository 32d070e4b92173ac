"""Give freed memory back to the OS: glibc's malloc arenas and Arrow's pool keep it after a peak.

A long-running host (desktop app, `strata serve`) has peaks: a vector-copy reload, a forgetting
or insights run, an import. Python, LanceDB (Rust, system allocator) and ONNX free that memory,
but glibc keeps the freed pages in its arenas, one arena per thread that ever allocated (up to
8 x cores), so RSS stays at the peak: `strata serve` at 100k messages measured 1.11 GB after its
first searches and 0.86 GB after one `malloc_trim(0)`. `limit_arenas` caps the arenas (fewer
half-empty heaps), `release` trims them and asks Arrow's pool to return its unused memory.
Both are no-ops where glibc is absent (macOS, Windows, musl).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # mallopt parameter numbers, from glibc's malloc.h
M_MMAP_THRESHOLD = -3


@dataclass(frozen=True, slots=True)
class Released:
    rss_before_mb: float
    rss_after_mb: float
    seconds: float

    @property
    def freed_mb(self) -> float:
        return max(0.0, self.rss_before_mb - self.rss_after_mb)


def prefer_system_arrow_pool() -> None:
    """Arrow allocates from the system allocator unless the user chose a pool (before pyarrow loads).

    pyarrow's default pool (mimalloc in the wheels) keeps freed segments even after
    `release_unused`: three cycles of searches, an import, an insight and a forgetting run, each
    followed by the idle release, left 289 MB of anonymous memory with it and 242 MB with the
    system allocator, at the same CPU per search (docs/benchmarks.md, "Lead, session 7").
    """
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


@lru_cache(maxsize=1)
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        # musl has no malloc_trim/mallopt: treat it as "nothing to do".
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


def rss_mb() -> float:
    """Resident set size of this process in MB (0 where /proc is not available)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def limit_arenas(count: int = 2) -> bool:
    """Cap glibc's malloc arenas for threads created from now on (MALLOC_ARENA_MAX, set late)."""
    libc = _libc()
    if libc is None or count < 1:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, count))


def fix_mmap_threshold(size: int = 4 * 1024 * 1024) -> bool:
    """Serve allocations of `size` bytes and more by mmap for the process's life (glibc only).

    glibc raises its mmap threshold (up to 32 MB) each time a large mapped block is freed, so the
    large buffers of later peaks (Arrow batches, ONNX activations, whole-table reads) come from the
    heaps instead and fragment them: anonymous memory after the idle release kept climbing over
    cycles of searches, imports, insight and forgetting runs (205, 216, 260, 264 MB) and stayed
    flat with a fixed threshold (4 MB: 210, 214, 218 MB; 256 KB: 203, 212, 215, 217 MB). 4 MB
    keeps a search's own score arrays (~0.4 MB at 100k) on the heap: with 256 KB every search
    mapped and faulted them in again, +1 ms of CPU a REST search (docs/benchmarks.md, "Lead,
    session 7"). A threshold the user chose (MALLOC_MMAP_THRESHOLD_) is kept.
    """
    libc = _libc()
    if libc is None or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, size))


def release() -> Released:
    """Trim glibc's heaps and Arrow's pool; returns RSS before and after (milliseconds of work)."""
    started = time.perf_counter()
    before = rss_mb()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
    arrow = sys.modules.get("pyarrow")  # only if something loaded it; never import it for this
    if arrow is not None:
        try:
            arrow.default_memory_pool().release_unused()
        except Exception:  # older Arrow builds lack it on some pools; trimming is best effort
            log.debug("arrow pool release failed", exc_info=True)
    return Released(before, rss_mb(), time.perf_counter() - started)
