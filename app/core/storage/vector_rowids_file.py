"""A row-id map (vector_rowids.py) saved beside the vector file, mapped back instead of rebuilt.

Rebuilding the map reads every key and row id of the table (1M rows: ~0.15–0.2 s of CPU), and
the first search after an idle release or in a freshly started search worker paid it. The map
of one table version never changes, so the process that builds it writes it here and any process
whose table is at that version maps it read-only: only the pages of the keys looked up become
resident (file pages, given back when the idle release drops the map).

    page 0   magic + JSON header (version, token, slots)
    slots    int64 [slots]: message id -> LanceDB row id at that version (-1: no row)

A saved map is used only for the exact table version it was built at, and only for the same
table: the token of the table's marker file (`vector_file.table_token`, written by the vector
file's build) must match, since a table dropped and made again starts its versions again. With
no marker yet (no vector file built) nothing is saved. Files are replaced by an atomic rename;
a reader keeps the one it mapped, whose version it checked.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import threading
from pathlib import Path

import numpy as np

from app.core.storage.vector_file import PAGE, table_token

log = logging.getLogger(__name__)

MAGIC = b"STRATA-ROWIDS/1\n"
SUFFIX = ".rowids"


def rowids_path(vector_file: Path) -> Path:
    """Where the map of the collection whose vector file is `vector_file` is saved."""
    return vector_file.with_suffix(SUFFIX)


class Saved:
    """The saved map of one collection: `path` for the map, `table_dir` for the marker token."""

    def __init__(self, path: Path, table_dir: Path) -> None:
        self.path = path
        self.table_dir = table_dir
        self.saves = 0  # maps written by this process (tests)

    def load(self, version: int) -> np.ndarray | None:
        """The saved map if it is this table's at `version` (mapped read-only), else None."""
        token = table_token(self.table_dir)
        if token is None:
            return None
        try:
            with open(self.path, "rb") as handle:
                header = _decode(handle.read(PAGE))
                if header is None or header != (version, token, header[2]):
                    return None
                slots = header[2]
                if os.fstat(handle.fileno()).st_size < PAGE + 8 * slots:
                    return None  # cut short (a crash before the rename reached the disk)
                mapped = mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ)
        except (OSError, ValueError):
            return None
        if hasattr(mmap, "MADV_RANDOM"):  # a search reads a few hundred scattered slots
            mapped.madvise(mmap.MADV_RANDOM)
        # The array holds the mapping; it is unmapped when the map is dropped (idle release).
        return np.frombuffer(mapped, np.int64, slots, PAGE)

    def save(self, version: int, slots: np.ndarray) -> None:
        """Write the map of `version` (a temporary file renamed into place); never raises."""
        token = table_token(self.table_dir)
        if token is None:
            return  # no vector file built for this table yet: nothing to tell tables apart by
        try:
            with open(self.path, "rb") as handle:
                if _decode(handle.read(PAGE)) == (version, token, len(slots)):
                    return  # another process saved this version already
        except OSError:
            pass
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = MAGIC + json.dumps({"version": version, "token": token, "slots": len(slots)}).encode()
            with open(temp, "wb") as handle:
                handle.write((body + b"\n").ljust(PAGE, b"\0"))
                handle.write(np.ascontiguousarray(slots, dtype=np.int64).tobytes())
            os.replace(temp, self.path)
            self.saves += 1
        except OSError:  # a full or read-only disk: the map in memory still serves
            log.debug("could not save the row-id map to %s", self.path, exc_info=True)
            temp.unlink(missing_ok=True)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _decode(page: bytes) -> tuple[int, str, int] | None:
    """(version, token, slots) of a saved map's first page (None: not one)."""
    if not page.startswith(MAGIC):
        return None
    try:
        fields = json.loads(page[len(MAGIC) :].split(b"\n", 1)[0])
        return int(fields["version"]), str(fields["token"]), int(fields["slots"])
    except (ValueError, TypeError, KeyError):
        return None
