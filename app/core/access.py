"""Access tracking off the request path: hits are queued and counted by a background flusher."""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterable

from sqlalchemy import bindparam, update

from app.core.clock import Clock
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow

log = logging.getLogger(__name__)

_TABLE = RawMessageRow.__table__
_COUNT_ACCESS = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("row_id"))
    .values(access_count=_TABLE.c.access_count + bindparam("hits"), last_access_at=bindparam("now"))
)


class AccessTracker:
    """Buffers `accessCount += 1, lastAccessAt = now` for retrieved messages and writes in batches."""

    def __init__(self, db: Database, clock: Clock, *, flush_interval: float = 2.0) -> None:
        self._db = db
        self._clock = clock
        self._pending: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._interval = flush_interval
        self._thread: threading.Thread | None = None

    def record(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._pending.update(ids)
        self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="strata-access", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._interval)
            self._wake.clear()
            self.flush()

    def flush(self) -> int:
        """Write what is pending now; returns how many records were touched."""
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending or self._db.read_only:
            return 0  # read-only (full disk): nowhere to keep the counts; they are a signal, not data
        now = self._clock.now_ms()
        try:
            with self._db.write() as session:
                # One executemany of one compiled statement: a statement per record cost ~0.3 ms of
                # Python each, a third of a core at 100 searches/s (docs/benchmarks.md, "REST
                # search CPU by stage").
                session.connection().execute(
                    _COUNT_ACCESS,
                    [{"row_id": row_id, "hits": hits, "now": now} for row_id, hits in pending.items()],
                )
        except Exception:
            # Access counts are a ranking signal, not data: never fail a search over them.
            log.warning("could not record %d accesses; will retry", len(pending), exc_info=True)
            with self._lock:
                self._pending.update(pending)
            return 0
        return len(pending)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.flush()
