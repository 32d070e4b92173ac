"""Helpers for storage-fault tests: count stored rows, make the SQLite database "full"."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from sqlalchemy import event, func, select

from app.bootstrap import Services
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow


def count_rows(services: Services) -> int:
    with services.db.read() as session:
        return int(session.scalar(select(func.count()).select_from(RawMessageRow)) or 0)


@contextlib.contextmanager
def database_full(db: Database, spare_pages: int = 2) -> Iterator[None]:
    """New write connections may grow the file by only `spare_pages` pages."""

    def cap(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count={pages + spare_pages}")

    db.write_engine.dispose()
    event.listen(db.write_engine, "connect", cap)
    try:
        yield
    finally:
        event.remove(db.write_engine, "connect", cap)
        db.write_engine.dispose()
