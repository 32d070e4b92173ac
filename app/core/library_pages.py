"""Unmap the clean library code pages an idle host touched once (they count in its RSS).

`strata serve` at 100k messages holds ~230 MB of mapped shared-library pages after its first
search (LanceDB's library alone ~100 MB, Arrow, ONNX Runtime, NumPy; the desktop app adds Qt's):
code that ran once and stays resident until the kernel needs the memory. An idle host (the
scheduler host's idle release) asks the kernel to drop them from its mappings with
`madvise(MADV_PAGEOUT)`; the next call that runs that code reads the pages back (the cost is in
docs/benchmarks.md, "Idle memory, second pass").

Only read-only mappings of `.so` files are touched, and MADV_PAGEOUT never loses data even on a
page that was written (it is written to swap or kept), so a mapping that changed between
reading `/proc/self/smaps` and the call cannot be harmed. Linux 5.4+ only; elsewhere a no-op.
"""

from __future__ import annotations

import ctypes
import logging
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from app.core import memory_trim

log = logging.getLogger(__name__)

MADV_PAGEOUT = 21  # linux/mman.h (5.4+); older kernels answer EINVAL and nothing happens
_LIBRARY = re.compile(r"\.so(\.[0-9.]+)?$")
_HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Dropped:
    mappings: int  # library mappings asked to drop their pages
    resident_mb: float  # what those mappings held resident before
    rss_before_mb: float
    rss_after_mb: float
    seconds: float

    @property
    def freed_mb(self) -> float:
        return max(0.0, self.rss_before_mb - self.rss_after_mb)


@dataclass(slots=True)
class _Mapping:
    start: int
    end: int
    path: str
    resident_kb: int = 0
    locked_kb: int = 0


def library_mappings(smaps: str) -> list[_Mapping]:
    """Read-only, resident mappings of shared libraries in an smaps text."""
    found: list[_Mapping] = []
    current: _Mapping | None = None
    for line in smaps.splitlines():
        header = _HEADER.match(line)
        if header is not None:
            start, end, perms, inode, path = header.groups()
            readonly = perms[1] != "w"
            library = inode != "0" and _LIBRARY.search(path) is not None  # "(deleted)" never matches
            current = _Mapping(int(start, 16), int(end, 16), path) if readonly and library else None
            if current is not None:
                found.append(current)
        elif current is not None:
            if line.startswith("Rss:"):
                current.resident_kb = int(line.split()[1])
            elif line.startswith("Locked:"):
                current.locked_kb = int(line.split()[1])
    return [m for m in found if m.resident_kb > 0 and m.locked_kb == 0]


def drop_library_pages() -> Dropped:
    """Ask the kernel to take this process's clean library pages back (see the module docstring)."""
    started = time.perf_counter()
    before = memory_trim.rss_mb()
    libc = memory_trim._libc() if sys.platform.startswith("linux") else None
    if libc is None:
        return Dropped(0, 0.0, before, before, 0.0)
    try:
        mappings = library_mappings(Path("/proc/self/smaps").read_text())
    except OSError:
        return Dropped(0, 0.0, before, before, 0.0)
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    asked = 0
    for mapping in mappings:
        if madvise(mapping.start, mapping.end - mapping.start, MADV_PAGEOUT) == 0:
            asked += 1
    resident = sum(m.resident_kb for m in mappings) / 1024
    return Dropped(asked, resident, before, memory_trim.rss_mb(), time.perf_counter() - started)
