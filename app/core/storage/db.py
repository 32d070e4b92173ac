"""SQLite access: WAL, busy timeout, foreign keys, short `BEGIN IMMEDIATE` write transactions.

Two engines on one file: readers start deferred transactions, writers take the write lock up
front (BEGIN IMMEDIATE) so two processes never deadlock upgrading a read lock to a write lock.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app.core.errors import DataDirUnusable, DiskFull, StorageError, StorageLocked
from app.core.storage import faults

log = logging.getLogger(__name__)
T = TypeVar("T")

BUSY_TIMEOUT_MS = 30_000
# SQLite's default limit on host parameters is 32766 in modern builds; stay far below it.
MAX_SQL_PARAMS = 900


def _enable_wal(cur: sqlite3.Cursor, busy_ms: int) -> None:
    """Switch the file to WAL (a lasting property of the file), waiting out a busy neighbour.

    SQLite does not call the busy handler when the switch meets another connection's write lock
    on a file still in rollback mode: it fails at once. Two processes opening a new data dir
    together hit exactly that, so the switch is retried here for as long as the busy timeout.
    """
    deadline = time.monotonic() + busy_ms / 1000
    pause = 0.005
    while True:
        try:
            if cur.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            mode = cur.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if faults.sqlite_code(exc) not in (faults.SQLITE_BUSY, faults.SQLITE_LOCKED):
                raise
            if time.monotonic() >= deadline:
                raise
        else:
            if mode != "wal":
                # Refused without an error (e.g. a file system without shared memory): rollback
                # mode works, only with less concurrency, so carry on rather than refuse to open.
                log.warning("the database stays in %s journal mode: WAL is not available here", mode)
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _make_engine(
    path: Path, begin_sql: str, *, read_only: bool = False, busy_ms: int = BUSY_TIMEOUT_MS
) -> Engine:
    # Read-only means immutable: with no room for the WAL index (-shm) SQLite can still read the
    # main file when told nobody writes it, which holds while the disk has no space anyway.
    url = f"sqlite:///file:{path}?mode=ro&immutable=1&uri=true" if read_only else f"sqlite:///{path}"
    engine = create_engine(
        url,
        connect_args={"timeout": busy_ms / 1000, "check_same_thread": False},
        pool_pre_ping=False,
        # An error's text (and so a logged traceback) leaves out the row values: messages' text,
        # which may hold secrets, never reaches the logs through a failed statement.
        hide_parameters=True,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook control transactions instead of pysqlite's guesswork.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute(f"PRAGMA busy_timeout={busy_ms}")
        if not read_only:
            _enable_wal(cur, busy_ms)
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        # Deleted means gone: freed pages and cells are overwritten with zeros, not left on disk.
        cur.execute("PRAGMA secure_delete=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin_sql)

    return engine


class Database:
    """The SQLite file of one data dir.

    Storage failures leave `read()` / `write()` as typed StorageErrors (see `faults`). When the
    file cannot be opened for writing because the disk is full (or the folder is read-only), the
    database opens read-only: search and stats keep working, and `write()` raises the reason.
    """

    def __init__(self, path: Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.read_only_reason: StorageError | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise faults.from_os_error(exc, path.parent) or StorageError(str(exc)) from exc
        self._open(read_only=False)
        try:
            self._probe()
        except StorageError as exc:
            if not (path.exists() and isinstance(exc, DiskFull | DataDirUnusable)):
                self.dispose()
                raise
            log.info("opening %s read-only: %s", path, exc)
            self.dispose()
            self.read_only_reason = exc
            self._open(read_only=True)
            self._probe()

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def _open(self, *, read_only: bool) -> None:
        busy = self.busy_timeout_ms
        self.read_engine = _make_engine(self.path, "BEGIN", read_only=read_only, busy_ms=busy)
        self.write_engine = _make_engine(self.path, "BEGIN IMMEDIATE", read_only=read_only, busy_ms=busy)
        self._read_sessions = sessionmaker(self.read_engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(self.write_engine, expire_on_commit=False)

    def _probe(self) -> None:
        """Open one connection now, so an unusable file fails here with a clear error, not later."""
        with self.converted_errors(), self.read_engine.connect() as conn:
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").all()

    @contextlib.contextmanager
    def converted_errors(self) -> Iterator[None]:
        """Storage-level sqlite3/OS failures inside the block leave it as typed StorageErrors."""
        try:
            yield
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            converted = faults.convert(exc, self.path)
            if converted is None or converted is exc:
                raise
            raise converted from exc

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only session; its snapshot lasts until the block ends.

        Closing (not rolling back) keeps loaded rows readable after the block as detached values.
        """
        with self.converted_errors(), self._read_sessions() as session:
            yield session

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One short write transaction: committed when the block ends, rolled back on error."""
        if self.read_only_reason is not None:
            raise self.read_only_reason
        with self.converted_errors(), self._write_sessions() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def write_with_retry(self, work: Callable[[Session], T], attempts: int = 5) -> T:
        """Run `work` in a write transaction, retrying when another process holds the lock too long."""
        for attempt in range(attempts):
            try:
                with self.write() as session:
                    return work(session)
            except StorageLocked:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it (old page images, deleted text included).

        Returns False when a reader still pins part of the log; the next checkpoint finishes it.
        """
        if self.read_only_reason is not None:
            raise self.read_only_reason
        with self.converted_errors(), self.write_engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            busy, _log_frames, _done = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return busy == 0

    def dispose(self) -> None:
        self.read_engine.dispose()
        self.write_engine.dispose()


def chunked(items: list[T], size: int = MAX_SQL_PARAMS) -> Iterator[list[T]]:
    """Slices small enough for an `IN (...)` list under SQLite's parameter limit."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
