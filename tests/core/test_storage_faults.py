"""Storage faults become typed errors with one clear sentence, and nothing is half-written.

A full database is simulated with SQLite's `PRAGMA max_page_count` (set on every new write
connection through SQLAlchemy's connect event), a full disk with a small tmpfs when this
process may mount one (root on Linux; skipped elsewhere).
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.security import load_or_create_token
from app.bootstrap import Services, build_services
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import DataDirUnusable, DiskFull, StorageCorrupt, StorageLocked
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.db import Database
from tests.conftest import make_message
from tests.core.faults import count_rows, database_full


def big_batch(n: int, start: int = 0) -> list[RawMessage]:
    return [make_message(start + i, content=f"message {start + i} " + "lorem ipsum " * 200) for i in range(n)]


def test_full_database_raises_disk_full_and_an_atomic_batch_stores_nothing(services: Services) -> None:
    with database_full(services.db), pytest.raises(DiskFull) as caught:
        services.memory.ingest(big_batch(300), atomic=True)
    assert "full" in caught.value.message and "free space" in (caught.value.hint or "")
    assert count_rows(services) == 0  # not one row of the 300
    # Space freed: the same call completes.
    assert services.memory.ingest(big_batch(300), atomic=True).imported == 300


def test_full_database_keeps_earlier_batches_whole_and_a_rerun_finishes(services: Services) -> None:
    services.processor.batch_size = 50
    with database_full(services.db, spare_pages=60), pytest.raises(DiskFull):
        services.memory.ingest(big_batch(400))
    stored = count_rows(services)
    assert stored % 50 == 0 and stored < 400  # whole batches only
    result = services.memory.ingest(big_batch(400))
    assert (result.imported, result.duplicates, count_rows(services)) == (400 - stored, stored, 400)


def test_reads_work_while_the_database_is_full(services: Services) -> None:
    services.memory.ingest(big_batch(20))
    with database_full(services.db, spare_pages=0):
        assert services.memory.stats()["messages"] == 20
        assert services.memory.search("message 3", limit=3)


def test_locked_database_is_storage_locked_after_the_busy_timeout(tmp_path: Path) -> None:
    db = Database(tmp_path / "x.sqlite3", busy_timeout_ms=200)
    holder = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        # The extended code name says which kind of lock it was.
        with (
            pytest.raises(StorageLocked, match=r"locked by another process .*SQLITE_BUSY"),
            db.write() as session,
        ):
            session.connection().exec_driver_sql("CREATE TABLE t (x)")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        db.dispose()


def test_opening_waits_for_a_neighbour_that_holds_the_write_lock_of_a_new_file(tmp_path: Path) -> None:
    # A file still in rollback mode whose write lock another process holds: SQLite refuses the
    # switch to WAL at once, without its busy handler. Two imports into a new data dir met this.
    path = tmp_path / "x.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO t VALUES (1)")
    releaser = threading.Timer(0.4, lambda: holder.execute("COMMIT"))
    releaser.start()
    try:
        db = Database(path, busy_timeout_ms=5_000)
        with db.read() as session:
            mode = session.connection().exec_driver_sql("PRAGMA journal_mode").scalar()
        assert mode == "wal"
        db.dispose()
    finally:
        releaser.join()
        holder.close()


def test_corrupt_file_is_named_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "strata.sqlite3"
    path.write_bytes(b"this is not a database" * 1000)
    with pytest.raises(StorageCorrupt) as caught:
        Database(path)
    assert "damaged or is not a Strata database" in caught.value.message
    assert "backup" in (caught.value.hint or "")


def test_unusable_data_dir_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    settings = Settings(data_dir=blocker / "data", embedding=EmbeddingSettings(provider="hashing"))
    with pytest.raises(DataDirUnusable, match="cannot use"):
        build_services(settings, embedder=HashingEmbedder())


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_on_a_full_disk_reads_work_and_writes_fail_clearly(tiny_disk: Path, clock) -> None:
    settings = Settings(data_dir=tiny_disk / "data", embedding=EmbeddingSettings(provider="hashing"))
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    svc.memory.ingest(big_batch(30))
    svc.close()
    filler = tiny_disk / "filler"
    # Unbuffered: a buffered file keeps the tail of a short write and fails again at close,
    # depending on how much room the data dir left (any schema change moves it).
    with filler.open("wb", buffering=0) as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 65536)
    # Reopening at 0 bytes free: SQLite cannot create its WAL index, so the store opens read-only.
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        assert svc.db.read_only
        assert svc.memory.stats()["messages"] == 30
        assert svc.memory.search("message 7", limit=3)
        with pytest.raises(DiskFull, match="no space left"):
            svc.memory.ingest(big_batch(5, start=100))
        token_file = settings.layout.token_file
        with pytest.raises(DiskFull):  # `strata serve` on a full disk: one sentence, no stub file
            load_or_create_token(token_file)
        assert not token_file.exists()
    finally:
        svc.close()
    filler.unlink()
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        assert not svc.db.read_only
        assert svc.memory.ingest(big_batch(5, start=100)).imported == 5
    finally:
        svc.close()
