"""At the start of a long-running host, a large archive's search files are read into the page cache.

`serve` and the desktop app run this once, in the background, right after start-up (a scheduler
job, like the repair): the first searches then find the faiss index, SQLite and the vectors'
memory-mapped file resident instead of reading them page by page from disk
(`app/core/storage/page_warmup.py`). Small archives have neither a faiss index nor a vector file
and are left alone: their searches read their in-memory copy. One-shot CLI commands never warm.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.core.index.faiss_files import FaissFileError
from app.core.storage.page_warmup import Warmed, warm_files

log = logging.getLogger(__name__)

WARM_UP_JOB_ID = "page-warm-up"
# After the start-up's own work (the window, the model), before a person has typed a query.
WARM_UP_DELAY_S = 2.0
MB = 1 << 20


def search_files(services: Any) -> list[Path]:
    """The messages' search files, most useful first: the faiss index (every search reads ~8 % of
    it), SQLite (postings, rows, turns), the vector file (~300 rows a search); [] for an archive
    with neither a faiss index nor a vector file (a small one)."""
    corpus = services.memory.searcher.corpus
    index: list[Path] = []
    if corpus.vector_engine == "faiss":
        files = corpus.faiss().files
        try:
            meta = files.current()
        except FaissFileError:
            meta = None  # unusable: LanceDB's index answers until the job rebuilds it
        if meta is not None:
            index = files.paths(meta)
    file = corpus.collection.file
    vectors = [file.path] if file is not None and file.path.exists() else []
    if not index and not vectors:
        return []
    return [*index, services.layout.database, *vectors]


def available_bytes() -> int | None:
    """Memory the kernel could give without swapping (Linux `MemAvailable`; None elsewhere)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def warm_up(services: Any) -> Warmed | None:
    """Read the search files ahead, within `search.warm_up_mb` and half the available memory
    (the page cache is shared with everything else the person runs); None when nothing to do."""
    budget = services.settings.search.warm_up_mb * MB
    free = available_bytes()
    if free is not None:
        budget = min(budget, free // 2)
    paths = search_files(services) if budget > 0 else []
    if not paths:
        return None
    # SQLite's file is read through SQLite's own descriptor: closing one of ours would drop its locks.
    warmed = warm_files(paths, budget_bytes=budget, locked={services.layout.database})
    log.info(
        "read %d MB of search files ahead (%d files) in %.1f s",
        warmed.bytes // MB,
        warmed.files,
        warmed.seconds,
    )
    return warmed


def schedule_warm_up(scheduler: Any, services: Any) -> None:
    """Once, right after start-up, in the scheduler's threads: opening the app never waits for it."""
    if services.settings.search.warm_up_mb <= 0:
        return
    scheduler.add_job(
        warm_up,
        "date",
        args=(services,),
        id=WARM_UP_JOB_ID,
        replace_existing=True,
        max_instances=1,
        coalesce=True,
        run_date=datetime.now(UTC) + timedelta(seconds=WARM_UP_DELAY_S),
    )
