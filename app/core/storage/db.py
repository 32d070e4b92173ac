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
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.core.errors import StorageError

log = logging.getLogger(__name__)
T = TypeVar("T")

BUSY_TIMEOUT_MS = 30_000
# SQLite's default limit on host parameters is 32766 in modern builds; stay far below it.
MAX_SQL_PARAMS = 900


def _make_engine(path: Path, begin_sql: str) -> Engine:
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        pool_pre_ping=False,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook control transactions instead of pysqlite's guesswork.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # Deleted means gone: freed pages and cells are overwritten with zeros, not left on disk.
        cur.execute("PRAGMA secure_delete=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin_sql)

    return engine


class Database:
    """The SQLite file of one data dir."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.read_engine = _make_engine(path, "BEGIN")
        self.write_engine = _make_engine(path, "BEGIN IMMEDIATE")
        self._read_sessions = sessionmaker(self.read_engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(self.write_engine, expire_on_commit=False)

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only session; its snapshot lasts until the block ends.

        Closing (not rolling back) keeps loaded rows readable after the block as detached values.
        """
        with self._read_sessions() as session:
            yield session

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One short write transaction: committed when the block ends, rolled back on error."""
        with self._write_sessions() as session:
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
            except OperationalError as exc:
                if "locked" not in str(exc).lower() or attempt == attempts - 1:
                    raise StorageError(
                        f"database {self.path} stayed locked: {exc.orig}",
                        hint="another Strata process is writing; try again in a moment",
                    ) from exc
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it (old page images, deleted text included).

        Returns False when a reader still pins part of the log; the next checkpoint finishes it.
        """
        with self.write_engine.connect() as conn:
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
