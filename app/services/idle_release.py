"""Give back what an idle host holds for speed: model session, vector copies, LanceDB, code pages.

The desktop app sits in the tray all day and `strata serve` waits for agents; between uses the
ONNX session (~170 MB), the in-memory vector copies (~400 MB at 100k messages with sentence
keys), LanceDB's index caches (~400 MB at 1M) and the library code pages a search ran (~200 MB)
would stay resident for nothing. The scheduler host's memory-trim job calls `release_idle`
every minute; what is dropped is rebuilt by the next use (its cost: docs/benchmarks.md, "Idle
memory" and "Idle memory, second pass").
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from app.core import library_pages

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IdleRelease:
    model: bool  # the embedding session was dropped
    vector_bytes: int  # what the dropped vector copies held
    lance_bytes: int = 0  # what LanceDB's caches held when its connection was closed
    pages_mb: float = 0.0  # library code pages given back (RSS before minus after)

    @property
    def anything(self) -> bool:
        return self.model or self.vector_bytes > 0 or self.lance_bytes > 0 or self.pages_mb > 0


def release_idle(
    services: Any,
    model_seconds: float,
    vector_seconds: float,
    now: float | None = None,
    *,
    drop_pages: bool = False,
) -> IdleRelease:
    """Drop the model session unused for `model_seconds`; the vector copies, LanceDB's connection
    and caches and the pooled SQLite connections unused for `vector_seconds` (0: never). With
    `drop_pages`, once the model went or no search ran for `vector_seconds`, library code pages
    are given back too."""
    now = time.monotonic() if now is None else now
    vector_bytes = lance_bytes = 0
    searches_idle = False
    if vector_seconds > 0:
        vector_bytes = services.index.release_idle(vector_seconds, now)
        if vector_bytes:
            # The conversation order holds the copy's keys; without it they would stay resident.
            services.memory.searcher.windows.release()
            services.memory.searcher.instances.release()  # list questions' word vectors
        searches_idle = services.index.searched_ago(now) >= vector_seconds
        if searches_idle:
            # Closing LanceDB drops its caches (decoded index partitions: ~400 MB at 1M messages);
            # every minute while idle, as a background job (repair, index upkeep) may reopen it.
            lance_bytes = services.index.release_vector_store()
            # Pooled SQLite connections keep their page caches (up to 2 MB each, ~11 MB at 100k
            # after concurrent searches); connections in use are left to finish.
            services.db.dispose()
    release_model = getattr(services.embedder, "release_if_idle", None)
    model = bool(release_model(model_seconds, now)) if release_model and model_seconds > 0 else False
    pages_mb = 0.0
    if drop_pages and (model or searches_idle):
        pages_mb = library_pages.drop_library_pages().freed_mb
    released = IdleRelease(model, vector_bytes, lance_bytes, pages_mb)
    if model or vector_bytes or lance_bytes >= 1_000_000 or pages_mb >= 16:
        log.info(
            "idle: released %s%.0f MB of vector copies, %.0f MB of LanceDB caches, %.0f MB of code pages",
            "the embedding model and " if model else "",
            vector_bytes / 1e6,
            lance_bytes / 1e6,
            pages_mb,
        )
    return released
