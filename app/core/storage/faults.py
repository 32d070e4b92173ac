"""The seam where sqlite3, SQLAlchemy and OS errors become Strata's StorageError types.

The only place that looks inside those errors: SQLite's result codes (`sqlite_errorcode`,
Python 3.11+) and `errno`. Everything above receives a typed error whose message says, in one
sentence, what happened and what to do.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from sqlalchemy.exc import DBAPIError

from app.core.errors import DataDirUnusable, DiskFull, StorageCorrupt, StorageError, StorageLocked

# Primary SQLite result codes (the low byte of an extended code).
SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26

_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_NO_ACCESS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT, errno.ENOTDIR}


def disk_is_full(path: Path) -> bool:
    """True when the file system holding `path` (or its nearest existing parent) has no room left."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        # A few pages of slack: SQLite cannot grow a file into the last partial block either.
        return shutil.disk_usage(probe).free < 64 * 1024
    except OSError:
        return False


def disk_full(path: Path) -> DiskFull:
    return DiskFull(
        f"no space left to write {path}: the database or the disk is full; this change was not stored",
        hint=f"free space on the disk holding {path.parent} and try again; reading and search keep working",
    )


def sqlite_code(exc: BaseException) -> int | None:
    """The primary SQLite result code of a sqlite3 (or SQLAlchemy-wrapped) error, if any."""
    inner = exc.orig if isinstance(exc, DBAPIError) else exc
    code = getattr(inner, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def convert(exc: BaseException, path: Path) -> StorageError | None:
    """The StorageError for a storage-level failure touching `path`, or None if it is not one."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, DBAPIError | sqlite3.Error):
        return _from_sqlite(sqlite_code(exc), path, exc)
    if isinstance(exc, OSError):
        return from_os_error(exc, path)
    return None


def _from_sqlite(code: int | None, path: Path, exc: BaseException) -> StorageError | None:
    detail = str(exc.orig if isinstance(exc, DBAPIError) else exc)
    if code == SQLITE_FULL or (code == SQLITE_IOERR and disk_is_full(path)):
        return disk_full(path)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        # The extended name (SQLITE_BUSY_SNAPSHOT, _RECOVERY, …) says whether the busy timeout was
        # waited out or SQLite refused at once: what to look at when this happens.
        inner = exc.orig if isinstance(exc, DBAPIError) else exc
        name = getattr(inner, "sqlite_errorname", None)
        return StorageLocked(
            f"the database {path} stayed locked by another process ({detail}{f', {name}' if name else ''})",
            hint="another Strata process (an import, the app) is writing; let it finish, then retry",
        )
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return StorageCorrupt(
            f"the database {path} is damaged or is not a Strata database ({detail})",
            hint="restore the data dir from a backup, or move the file away to start with an empty memory",
        )
    if code in (SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN):
        return DataDirUnusable(
            f"cannot write the database {path} ({detail})",
            hint="check that the data dir is writable by you (permissions, read-only disk) or use --data-dir",
        )
    if code == SQLITE_IOERR:
        return StorageError(
            f"the disk reported an I/O error on {path} ({detail})",
            hint="check the disk; then run `strata doctor`",
        )
    return None


def unusable(exc: OSError, path: Path) -> DataDirUnusable:
    """The fallback for an OS error on the data dir that `from_os_error` does not single out."""
    return DataDirUnusable(
        f"cannot use {path} for Strata's data: {exc.strerror or exc}",
        hint="choose a folder you can write with --data-dir DIR (or STRATA_DATA_DIR)",
    )


def from_os_error(exc: OSError, path: Path) -> StorageError | None:
    where = Path(exc.filename) if exc.filename else path
    if exc.errno in _NO_SPACE:
        return disk_full(where)
    if exc.errno in _NO_ACCESS:
        return unusable(exc, where)
    return None
