"""Bring a database up to the newest schema: every Alembic head (core plus each feature branch)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.core.errors import MigrationError
from app.core.storage import faults
from app.core.storage.db import Database

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def heads() -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


@contextlib.contextmanager
def _process_lock(path: Path) -> Iterator[None]:
    """Serialize migrations across processes that open the same data dir at once."""
    lock_path = path.with_suffix(".migrate.lock")
    with open(lock_path, "a+") as handle:
        try:
            import fcntl  # POSIX only; Windows relies on SQLite's own locking below.

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        except ImportError:
            pass
        try:
            yield
        finally:
            with contextlib.suppress(ImportError):
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def current_revisions(db: Database) -> set[str]:
    with db.converted_errors(), db.read_engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def migrate(db: Database) -> None:
    """Upgrade to all heads; a no-op when already there."""
    if db.read_only_reason is not None:
        # No lock file and no upgrade possible: fine when the schema is current (reads work).
        if current_revisions(db) != heads():
            raise db.read_only_reason
        return
    with db.converted_errors(), _process_lock(db.path):
        if current_revisions(db) == heads():
            return
        config = alembic_config()
        try:
            with db.write_engine.connect() as conn:
                config.attributes["connection"] = conn
                command.upgrade(config, "heads")
                conn.commit()
        except Exception as exc:
            converted = faults.convert(exc, db.path)  # a full disk is a full disk, not a schema bug
            if converted is not None:
                raise converted from exc
            raise MigrationError(
                f"could not upgrade the database schema at {db.path}: {exc}",
                hint="back up the data dir and run `strata doctor`; report the message if it persists",
            ) from exc
