"""Reading files ahead into the page cache: what is read, within the budget, and stopping."""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.core.storage.page_warmup import held_descriptor, warm_files


def resident_share(path: Path) -> float:
    """Share of the file's pages in the page cache (Linux `mincore`)."""
    size = path.stat().st_size
    libc = ctypes.CDLL(None, use_errno=True)
    with path.open("rb") as file, mmap.mmap(file.fileno(), size, prot=mmap.PROT_READ) as mapped:
        view = np.frombuffer(mapped, dtype=np.uint8)
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        flags = (ctypes.c_ubyte * pages)()
        assert libc.mincore(ctypes.c_void_p(view.ctypes.data), ctypes.c_size_t(size), flags) == 0
        share = sum(f & 1 for f in flags) / pages
        del view
    return share


def evicted(path: Path, size: int) -> Path:
    """A file of `size` bytes written and synced, then dropped from the page cache."""
    path.write_bytes(os.urandom(size))
    with path.open("rb") as file:
        os.fsync(file.fileno())
        os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return path


def settled(path: Path, at_least: float) -> float:
    deadline = time.monotonic() + 5  # the kernel reads ahead asynchronously
    while (share := resident_share(path)) < at_least and time.monotonic() < deadline:
        time.sleep(0.02)
    return share


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    if not sys.platform.startswith("linux"):
        pytest.skip("page-cache residency is read with Linux mincore")
    made = [evicted(tmp_path / f"f{i}", size) for i, size in enumerate((3 << 20, 5 << 20, 1 << 20))]
    if max(resident_share(p) for p in made) > 0.1:
        pytest.skip("this file system keeps written pages (tmpfs?): nothing to measure")
    return made


def test_files_within_the_budget_are_read_in_and_a_file_too_large_is_skipped(files: list[Path]) -> None:
    first, large, small = files
    # 3 MB, then 5 MB (over a 4.5 MB budget: skipped whole, not cut), then 1 MB.
    warmed = warm_files(
        [first, large, small, first.with_name("gone")], budget_bytes=9 << 19, chunk_bytes=1 << 20
    )
    assert (warmed.files, warmed.bytes) == (2, 4 << 20)
    assert settled(first, 1.0) == 1.0 and settled(small, 1.0) == 1.0
    assert resident_share(large) < 0.1


def test_without_fadvise_the_files_are_read(files: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "posix_fadvise")  # macOS and Windows have none
    warmed = warm_files(files[:1], budget_bytes=1 << 30, chunk_bytes=1 << 20)
    assert warmed.bytes == 3 << 20 and resident_share(files[0]) == 1.0


def test_a_stop_request_ends_it_between_chunks(files: list[Path]) -> None:
    stop = threading.Event()
    stop.set()
    assert warm_files(files, budget_bytes=1 << 30, stop=stop).bytes == 0
    assert resident_share(files[0]) < 0.1


def test_a_locked_file_is_read_only_through_a_descriptor_already_held(files: list[Path]) -> None:
    # SQLite's database: a descriptor of ours, once closed, would drop SQLite's locks on it.
    first, _, small = files
    assert held_descriptor(first) is None
    assert warm_files([first], budget_bytes=1 << 30, locked={first}).files == 0  # nobody holds it
    assert resident_share(first) < 0.1
    with first.open("rb") as owner:  # what SQLite holds
        assert held_descriptor(first) == owner.fileno()
        warmed = warm_files([first, small], budget_bytes=1 << 30, chunk_bytes=1 << 20, locked={first})
        assert (warmed.files, warmed.bytes) == (2, 4 << 20)
        assert settled(first, 1.0) == 1.0
        os.fstat(owner.fileno())  # still open: the warm-up closed nothing of its owner's
