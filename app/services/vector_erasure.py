"""A deletion's vectors leave LanceDB's files too: note their fragments, rewrite them, then purge.

`mark(ids)` runs before the vectors are deleted and records (in SQLite) the tables that hold
the messages' vectors and their sentence keys, and the derived tables the deletion hooks rewrite
(summaries, insights); `run()` rewrites their fragments that hold masked rows (`vector_erase.rewrite`), drops
the old versions and files (`purge_history`) and only then clears the record. Anything a crash
or an error leaves recorded is finished by the next `run()`: the index repair job (at start-up
and every 30 minutes) and `doctor --repair` call it.

Rewriting costs about a second per 100k rows of a table plus, where LanceDB has a vector index
on it, the index's catch-up on the rewritten rows (docs/benchmarks.md, "Erasing deleted rows"):
a long-running host (`start_background`) answers the deletion at once and rewrites on a worker
thread right after; a command (`strata messages delete`) rewrites before it returns.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from app.core.clock import Clock
from app.core.storage import vector_erase
from app.core.storage.db import Database
from app.core.storage.vectors import VectorCollection

log = logging.getLogger(__name__)

# Message ids → the collection and the keys their vectors are stored under there.
KeySource = Callable[[Sequence[int]], tuple[VectorCollection, list[str]]]


@dataclass(frozen=True, slots=True)
class ErasureRun:
    fragments: int  # fragments rewritten
    rows: int  # live rows written anew
    pending: int  # fragments still recorded (an error: retried by the repair job)
    purged: frozenset[str] = frozenset()  # tables whose old versions were dropped


class VectorErasure:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        # Registered in bootstrap: the messages' own vectors, their sentence keys.
        self.sources: list[KeySource] = []
        # Small tables a deletion hook rewrites (summaries quoting a message, insights citing it):
        # every fragment of them is rewritten, so the replaced rows' vectors go too.
        self.derived: list[Callable[[], VectorCollection]] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._worker: threading.Thread | None = None
        self._running = threading.Lock()  # the worker and the repair job never rewrite at once

    @property
    def background(self) -> bool:
        """Whether a worker rewrites after deletions (a host); False: the deletion does it."""
        return self._worker is not None

    def start_background(self) -> None:
        """Rewrite on a worker thread from now on, woken by each deletion (`request`)."""
        if self._worker is None:
            self._worker = threading.Thread(target=self._loop, name="vector-erasure", daemon=True)
            self._worker.start()

    def request(self) -> None:
        """Have the worker run soon (it runs until nothing is recorded)."""
        self._idle.clear()
        self._wake.set()

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Block until the worker has nothing left to do (tests, benchmarks); False on timeout."""
        return self._idle.wait(timeout_s)

    def close(self) -> None:
        """Stop the worker after its current table; what is left stays recorded for the next start."""
        self._stop.set()
        self._wake.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(5.0)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self.run()
            except Exception:  # recorded work stays recorded: the repair job retries it
                log.exception("erasing deleted rows failed; the repair job retries")
            if not self._wake.is_set():
                self._idle.set()

    def mark(self, message_ids: Sequence[int]) -> None:
        """Record the tables to erase in, before the messages' vectors are deleted: every fragment
        of them holding masked rows is rewritten by `run` (the deleted rows and older masked
        ones, e.g. an edited message's earlier vector or the keys of a message archived before)."""
        if not message_ids:
            return
        names = [source(message_ids)[0].name for source in self.sources]
        names += [table().name for table in self.derived]
        now = self.clock.now_ms()
        with self.db.write() as session:
            for name in names:
                vector_erase.record(session, name, [vector_erase.WHOLE_TABLE], now)

    def pending(self) -> int:
        """Fragments recorded and not yet rewritten (0: no deleted row's bytes are known to remain)."""
        with self.db.read() as session:
            return vector_erase.pending_count(session)

    def run(self, collections: Iterable[VectorCollection] = ()) -> ErasureRun:
        """Rewrite every recorded fragment, purge, clear; `collections` adds tables to look up
        recorded names in (beside the registered ones). Errors are logged and left recorded."""
        with self._running:
            return self._run(collections)

    def _run(self, collections: Iterable[VectorCollection]) -> ErasureRun:
        with self.db.read() as session:
            due = vector_erase.pending(session)
        if not due:
            return ErasureRun(0, 0, 0)
        known = {c.name: c for c in [*self._registered(), *collections]}
        fragments = rows = 0
        purged: set[str] = set()
        for name, wanted in due.items():
            if self._stop.is_set():
                break
            collection = known.get(name)
            try:
                if collection is not None:
                    report = vector_erase.rewrite(collection, wanted)
                    # Old versions hold the old data files (and index files): drop them now.
                    collection.purge_history()
                    purged.add(name)
                    fragments, rows = fragments + report.fragments, rows + report.rows
                else:  # a table no longer in use (a model switch dropped it with its files)
                    log.info("erasure: %s is not open here; its record is dropped", name)
            except Exception:
                log.exception("erasing deleted rows from %s failed; the repair job retries", name)
                continue
            with self.db.write() as session:
                vector_erase.clear(session, name, wanted)
        return ErasureRun(fragments, rows, self.pending(), frozenset(purged))

    def _registered(self) -> list[VectorCollection]:
        tables = [source([])[0] for source in self.sources]
        return tables + [table() for table in self.derived]
