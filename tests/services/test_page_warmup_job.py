"""The start-up page warm-up: a large archive's search files are read ahead once, a small one's never."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from apscheduler.events import EVENT_JOB_EXECUTED

from app.services.page_warmup_job import WARM_UP_JOB_ID, search_files, warm_up
from app.services.scheduling import JobHost
from app.ui.job_control import HIDDEN
from tests.conftest import make_message
from tests.core.storage.test_page_warmup import resident_share

pytest.importorskip("faiss")


def test_a_small_archive_has_nothing_to_warm(services) -> None:
    services.memory.ingest([make_message(n, content=f"note {n}") for n in range(5)])
    assert search_files(services) == []
    assert warm_up(services) is None


def as_large(services) -> None:
    """400 messages served as a large archive is: a faiss index and a vector file."""
    services.memory.ingest([make_message(n, content=f"river piano note {n}") for n in range(400)])
    corpus = services.memory.searcher.corpus
    corpus.vector_engine = "faiss"
    corpus.max_cached_rows = 1  # past the in-memory limit: the faiss leg and the file serve
    corpus.ann().min_rows = 300
    corpus.vector_file_min_rows = 20
    services.index.maintain_vector_indexes()  # the index-vectors job's body: builds faiss
    services.index.run_vector_file_job()


def test_a_large_archives_files_are_read_ahead_at_start_up(services) -> None:
    as_large(services)
    corpus = services.memory.searcher.corpus
    meta = corpus.faiss().files.current()
    files = search_files(services)
    # Most useful first: the faiss index and its keys, SQLite, then the vector file.
    assert files == [*corpus.faiss().files.paths(meta), services.layout.database, corpus.collection.file.path]
    if sys.platform.startswith("linux"):
        for path in files:
            with path.open("rb") as file:
                os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)

    host = JobHost(services)
    ran = threading.Event()
    host_started = host.start()
    try:
        assert WARM_UP_JOB_ID in host_started and WARM_UP_JOB_ID in HIDDEN
        host.scheduler.add_listener(
            lambda event: event.job_id == WARM_UP_JOB_ID and ran.set(), EVENT_JOB_EXECUTED
        )
        job = host.scheduler.get_job(WARM_UP_JOB_ID)
        job.modify(next_run_time=datetime.now(UTC))  # due a moment after start-up: now
        assert ran.wait(10)
    finally:
        host.stop()
    if sys.platform.startswith("linux"):
        assert all(resident_share(path) > 0.5 for path in files if path.stat().st_size > 0)
    assert warm_up(services).bytes == sum(Path(p).stat().st_size for p in files)


def test_no_warm_up_when_turned_off(services) -> None:
    services.settings.search.warm_up_mb = 0
    host = JobHost(services)
    try:
        assert WARM_UP_JOB_ID not in host.start()
    finally:
        host.stop()


OTHER_PROCESS = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(con.execute(sys.argv[2]).fetchone()[0])
con.close()
"""


def other_process(database: Path, sql: str) -> str:
    """A second process opens the database, runs one query and closes (a CLI command, a worker)."""
    done = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, str(database), sql], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.skipif(os.name != "posix", reason="POSIX record locks")
def test_the_warm_up_leaves_sqlites_locks_and_wal_alone(services) -> None:
    # Closing a descriptor of its own on the database dropped the locks SQLite held on it: the next
    # process to close its connection deleted the WAL under the host, whose later commits then went
    # to a deleted file (the 1M soak: "disk I/O error", then "database disk image is malformed").
    as_large(services)
    database = services.layout.database
    wal = database.with_name(database.name + "-wal")
    services.memory.ingest([make_message(1000, content="written before the warm-up")])
    assert wal.exists()

    warmed = warm_up(services)
    assert warmed is not None and warmed.files == len(search_files(services))  # SQLite read ahead too
    assert other_process(database, "SELECT count(*) FROM raw_messages") == "401"
    assert wal.exists()  # the host still holds its shared lock: the other process left the WAL

    services.memory.ingest([make_message(1001, content="written after the warm-up")])
    # What the host writes now is where every other process reads it, and the file is sound.
    assert other_process(database, "SELECT count(*) FROM raw_messages") == "402"
    assert other_process(database, "PRAGMA integrity_check") == "ok"
