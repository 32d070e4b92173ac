"""The start-up page warm-up: a large archive's search files are read ahead once, a small one's never."""

from __future__ import annotations

import os
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


def test_a_large_archives_files_are_read_ahead_at_start_up(services) -> None:
    services.memory.ingest([make_message(n, content=f"river piano note {n}") for n in range(400)])
    corpus = services.memory.searcher.corpus
    corpus.vector_engine = "faiss"
    corpus.max_cached_rows = 1  # past the in-memory limit: the faiss leg and the file serve
    corpus.ann().min_rows = 300
    corpus.vector_file_min_rows = 20
    services.index.maintain_vector_indexes()  # the index-vectors job's body: builds faiss
    services.index.run_vector_file_job()
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
