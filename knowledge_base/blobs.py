"""Original uploaded files, kept under `<data dir>/documents/` and written atomically."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path, PurePath

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class BlobStore:
    """Files are named `<document id><suffix>`: the id is unique, the suffix helps humans browsing."""

    def __init__(self, root: Path, directory: Path) -> None:
        self.root = root  # the data dir; stored paths are relative to it
        self.directory = directory

    def relative_path(self, document_id: str, file_name: str) -> str:
        suffix = _UNSAFE.sub("", PurePath(file_name).suffix.lower())[:16]
        return (self.directory / f"{document_id}{suffix}").relative_to(self.root).as_posix()

    def write(self, relative: str, data: bytes) -> Path:
        """Write via a temporary file + rename, so a crash never leaves a half file under the final name."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        return path

    def read(self, relative: str) -> bytes:
        return (self.root / relative).read_bytes()

    def delete(self, relative: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.root / relative).unlink()

    def exists(self, relative: str) -> bool:
        return (self.root / relative).is_file()

    def stored(self) -> list[str]:
        """Every stored blob (relative paths), for the orphan check."""
        if not self.directory.is_dir():
            return []
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.directory.iterdir()
            if p.is_file() and not p.name.startswith(".")
        )
