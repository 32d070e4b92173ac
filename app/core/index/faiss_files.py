"""The faiss IVF-SQ8 index of a vector collection on disk: generations written whole, then swapped.

A directory per collection (`vectors.ivf/<collection>/`) holds numbered generations, each an
index file (`NNNNNN.faiss`, faiss ids = positions) and its position -> key array
(`NNNNNN.keys.npy`, int64: message keys are integers), and `current.json` naming the one in use
with what it was built from. A new generation is written under temporary names, renamed, and
only then named in `current.json` (an atomic replace), so a reader never sees half a file; the
replaced generation's files are deleted (a reader that mapped them keeps its pages on POSIX; on
Windows the deletion fails while mapped and is retried at the next write).
Readers open the index memory-mapped (`IO_FLAG_MMAP`): its codes are file-backed pages, not
anonymous memory. Figures: docs/benchmarks.md, "1M: a faiss vector leg".
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

CURRENT = "current.json"


class FaissFileError(Exception):
    """The index directory is missing, unreadable or inconsistent: LanceDB answers instead."""


@dataclass(frozen=True, slots=True)
class FaissMeta:
    generation: int
    rows: int  # positions in the index (deleted keys removed at the write that saw them gone)
    trained_rows: int  # rows present when the coarse partitions were trained
    partitions: int
    built_at: float  # time.time() of the write

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def faiss_module() -> Any | None:
    """The faiss module, or None where its wheel is not installed (an Intel Mac: no 1.15 wheel)."""
    try:
        import faiss
    except ImportError:
        return None
    return faiss


class FaissFiles:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def current(self) -> FaissMeta | None:
        """The generation in use; None when none was ever written. Raises FaissFileError when
        `current.json` is there but unreadable or names files that are not."""
        path = self.directory / CURRENT
        if not path.exists():
            return None
        try:
            meta = FaissMeta(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            raise FaissFileError(f"{path} is unreadable ({exc})") from exc
        for name in (self._index_name(meta.generation), self._keys_name(meta.generation)):
            if not (self.directory / name).is_file():
                raise FaissFileError(f"{self.directory / name} is missing")
        return meta

    def open(self, meta: FaissMeta) -> tuple[Any, np.ndarray]:
        """The generation's index (memory-mapped, read-only) and its keys (memory-mapped)."""
        faiss = faiss_module()
        if faiss is None:
            raise FaissFileError("faiss is not installed")
        index_path = self.directory / self._index_name(meta.generation)
        try:
            index = faiss.read_index(str(index_path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
            keys = np.load(self.directory / self._keys_name(meta.generation), mmap_mode="r")
        except (RuntimeError, OSError, ValueError) as exc:  # faiss raises RuntimeError on a bad file
            raise FaissFileError(f"{index_path} could not be read ({exc})") from exc
        if index.ntotal != len(keys) or index.ntotal != meta.rows:
            raise FaissFileError(
                f"{index_path} holds {index.ntotal} codes for {len(keys)} keys ({meta.rows} expected)"
            )
        return index, keys

    def keys(self, meta: FaissMeta) -> np.ndarray:
        """The generation's position -> key array (memory-mapped)."""
        try:
            return np.load(self.directory / self._keys_name(meta.generation), mmap_mode="r")
        except (OSError, ValueError) as exc:
            raise FaissFileError(f"{self.directory} could not be read ({exc})") from exc

    def load_for_writing(self, meta: FaissMeta) -> tuple[Any, np.ndarray]:
        """The generation read whole into memory (to add or remove rows, then `write`)."""
        faiss = faiss_module()
        if faiss is None:
            raise FaissFileError("faiss is not installed")
        try:
            index = faiss.read_index(str(self.directory / self._index_name(meta.generation)))
            keys = np.load(self.directory / self._keys_name(meta.generation))
        except (RuntimeError, OSError, ValueError) as exc:
            raise FaissFileError(f"{self.directory} could not be read ({exc})") from exc
        return index, np.asarray(keys, dtype=np.int64)

    def write(self, index: Any, keys: np.ndarray, *, trained_rows: int) -> FaissMeta:
        """Write `index` and `keys` as the next generation and make it current."""
        faiss = faiss_module()
        assert faiss is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            previous = self.current()
        except FaissFileError:
            previous = None
        generation = self._next_generation()
        index_path = self.directory / self._index_name(generation)
        keys_path = self.directory / self._keys_name(generation)
        tmp = f".tmp-{os.getpid()}"
        faiss.write_index(index, str(index_path) + tmp)
        with open(str(keys_path) + tmp, "wb") as out:
            np.save(out, np.asarray(keys, dtype=np.int64))
        os.replace(str(index_path) + tmp, index_path)
        os.replace(str(keys_path) + tmp, keys_path)
        meta = FaissMeta(generation, int(index.ntotal), trained_rows, int(index.nlist), time.time())
        current = self.directory / CURRENT
        current.with_suffix(".json" + tmp).write_text(json.dumps(meta.to_dict()), encoding="utf-8")
        os.replace(current.with_suffix(".json" + tmp), current)
        self._drop_others(keep=generation, previous=previous)
        return meta

    def remove(self) -> None:
        """Delete every file of the directory (a corrupt index before its rebuild)."""
        if not self.directory.is_dir():
            return
        for path in self.directory.iterdir():
            try:
                path.unlink()
            except OSError:
                log.warning("could not delete %s (still mapped?)", path)

    def disk_bytes(self) -> int:
        if not self.directory.is_dir():
            return 0
        return sum(p.stat().st_size for p in self.directory.iterdir() if p.is_file())

    def _next_generation(self) -> int:
        numbers = [int(p.name[:6]) for p in self.directory.glob("[0-9]" * 6 + ".*")]
        return max(numbers, default=0) + 1

    def _drop_others(self, *, keep: int, previous: FaissMeta | None) -> None:
        for path in self.directory.iterdir():
            name = path.name
            older = name[:6].isdigit() and int(name[:6]) != keep
            ours_unfinished = ".tmp-" in name and name.endswith(str(os.getpid()))
            if older or ours_unfinished:
                try:
                    path.unlink()
                except OSError:  # Windows: a reader still maps it; the next write tries again
                    log.info("kept %s for now (in use)", path)
        if previous is not None:
            log.debug("faiss generation %d replaced by %d", previous.generation, keep)

    def paths(self, meta: FaissMeta) -> list[Path]:
        """The files of one generation: its index, then its keys."""
        names = (self._index_name(meta.generation), self._keys_name(meta.generation))
        return [self.directory / name for name in names]

    @staticmethod
    def _index_name(generation: int) -> str:
        return f"{generation:06d}.faiss"

    @staticmethod
    def _keys_name(generation: int) -> str:
        return f"{generation:06d}.keys.npy"
