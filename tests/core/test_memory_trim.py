"""Giving freed memory back: a trim after a peak lowers RSS on glibc and is a no-op elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from app.core import memory_trim


def test_release_reports_rss_and_is_quick() -> None:
    released = memory_trim.release()
    assert released.seconds < 1
    if sys.platform.startswith("linux"):
        assert released.rss_before_mb > 0 and released.rss_after_mb > 0


@pytest.mark.skipif(memory_trim._libc() is None, reason="glibc only")
def test_a_freed_peak_goes_back_to_the_os() -> None:
    memory_trim.release()
    # Many small blocks (as Python and LanceDB allocate), freed: glibc keeps them without a trim.
    blocks = [bytearray(4000) for _ in range(40_000)]
    peak = memory_trim.rss_mb()
    del blocks
    released = memory_trim.release()
    assert released.rss_after_mb < peak - 100, released


def test_limit_arenas_is_safe_to_call_again() -> None:
    assert memory_trim.limit_arenas(2) == (memory_trim._libc() is not None)
    assert memory_trim.limit_arenas(2) == (memory_trim._libc() is not None)


def test_arrow_uses_the_system_allocator_unless_the_user_chose() -> None:
    code = "import app, pyarrow; print(pyarrow.default_memory_pool().backend_name)"
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    ours = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert ours.stdout.strip() == "system"
    env["ARROW_DEFAULT_MEMORY_POOL"] = "mimalloc"
    chosen = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert chosen.stdout.strip() == "mimalloc"


_FRAGMENT = """
import ctypes, sys
import numpy as np
if sys.argv[1] == "app":
    import app  # noqa: F401
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
a = np.ones(2_000_000)  # a 16 MB mapped block, freed: glibc would raise its threshold to 16 MB
del a
kept, blocks = [], []
for _ in range(20):
    blocks.append(np.ones(600_000))  # 4.8 MB, above the fixed 4 MB threshold
    kept.append(libc.malloc(1000))  # pins the heap above each block, as live objects do
from app.core.memory_trim import rss_mb
before = rss_mb()
del blocks
print(before - rss_mb())
"""


@pytest.mark.skipif(memory_trim._libc() is None, reason="glibc only")
def test_freed_buffers_go_back_at_once_with_the_threshold_fixed() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}

    def returned_mb(mode: str) -> float:
        run = [sys.executable, "-c", _FRAGMENT, mode]
        return float(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)

    assert returned_mb("app") > 80  # 96 MB freed: mapped on their own, unmapped at once
    assert returned_mb("plain") < 20  # glibc's own rule: holes in the heap that stay
