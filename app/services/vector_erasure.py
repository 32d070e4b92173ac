"""A deletion's vectors leave LanceDB's files too: note the tables, compact them, then purge.

`mark(ids)` runs before the vectors are deleted and records (in SQLite) the tables a deletion
touches: the messages' vectors, their sentence keys, and the summaries and insights the deletion
hooks rewrite or remove; `run()` compacts their fragments that mask rows (`vector_erase.compact`),
drops the old versions and files (`purge_history`) and only then clears the record. Anything a
crash or an error leaves recorded is finished by the next `run()`: the index repair job (at
start-up and every 30 minutes) and `doctor --repair` call it.

The compaction rewrites whole fragments (in time one fragment holds most of a table: at 1M
messages ~1.5 GB; figures in docs/benchmarks.md, "Erasing deleted rows"), so a long-running host
(`start_background`) answers the deletion at once and compacts on a worker thread right after;
a command (`strata messages delete`) compacts before it returns.
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


@dataclass(frozen=True, slots=True)
class ErasureRun:
    fragments: int  # fragments rewritten
    pending: int  # tables still recorded (an error: retried by the repair job)
    purged: frozenset[str] = frozenset()  # tables whose old versions were dropped


class VectorErasure:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        # Registered in bootstrap: the tables a deletion touches (messages, sentence keys, and the
        # summaries and insights its hooks rewrite or remove).
        self.tables: list[Callable[[], VectorCollection]] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._worker: threading.Thread | None = None
        self._running = threading.Lock()  # the worker and the repair job never compact at once
        # A deletion's slow clean-ups of derived files (the faiss index's codes: ~9 s at 1M), run
        # before the next compaction; on a host that is the worker, so the deletion is answered
        # without waiting for them.
        self._deferred: list[Callable[[], object]] = []
        self._deferred_lock = threading.Lock()

    @property
    def background(self) -> bool:
        """Whether a worker compacts after deletions (a host); False: the deletion does it."""
        return self._worker is not None

    def start_background(self) -> None:
        """Compact on a worker thread from now on, woken by each deletion (`request`)."""
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

    def defer(self, step: Callable[[], object]) -> None:
        """Run `step` before the next compaction: at once in a command, on the worker in a host.

        For a deletion's clean-up of files derived from the vectors (the faiss index's codes).
        Crash-safe because the clean-up is also done by a later job (the index job drops codes
        LanceDB no longer holds); deferring only moves it off the request path.
        """
        if self._worker is None:
            step()
            return
        with self._deferred_lock:
            self._deferred.append(step)
        self.request()

    def close(self) -> None:
        """Stop the worker after its current table; what is left stays recorded for the next start."""
        self._stop.set()
        self._wake.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(5.0)
            if not worker.is_alive():
                self._run_deferred()  # a deletion just before closing: its clean-up is not left behind

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
        """Record the tables to erase in, before the messages' vectors are deleted: `run` compacts
        every fragment of them that masks a row (the deleted ones, and older masked ones, e.g. an
        edited message's earlier vector or the keys of a message archived before)."""
        if not message_ids:
            return
        names = [table().name for table in self.tables]
        with self.db.write() as session:
            vector_erase.record(session, names, self.clock.now_ms())

    def pending(self) -> int:
        """Tables recorded and not yet erased in (0: no deleted row's bytes are known to remain)."""
        with self.db.read() as session:
            return len(vector_erase.pending(session))

    def run(self, collections: Iterable[VectorCollection] = ()) -> ErasureRun:
        """Compact every recorded table, purge, clear; `collections` adds tables to look up
        recorded names in (beside the registered ones). Errors are logged and left recorded."""
        with self._running:
            return self._run(collections)

    def _run_deferred(self) -> None:
        with self._deferred_lock:
            steps, self._deferred = self._deferred, []
        for step in steps:
            try:
                step()
            except Exception:  # derived files: the index job redoes it from LanceDB
                log.exception("a deletion's clean-up failed; the index job finishes it")

    def _run(self, collections: Iterable[VectorCollection]) -> ErasureRun:
        self._run_deferred()  # before the compaction and purge: nothing derived outlives the rows
        with self.db.read() as session:
            due = vector_erase.pending(session)
        if not due:
            return ErasureRun(0, 0)
        known = {c.name: c for c in [*self._registered(), *collections]}
        rewritten = 0
        purged: set[str] = set()
        for name in due:
            if self._stop.is_set():
                break
            collection = known.get(name)
            try:
                if collection is not None:
                    rewritten += vector_erase.compact(collection).fragments_removed
                    # Old versions hold the old data and index files: drop them now.
                    collection.purge_history()
                    purged.add(name)
                else:  # a table no longer in use (a model switch dropped it with its files)
                    log.info("erasure: %s is not open here; its record is dropped", name)
            except Exception:
                log.exception("erasing deleted rows from %s failed; the repair job retries", name)
                continue
            with self.db.write() as session:
                vector_erase.clear(session, name)
        return ErasureRun(rewritten, self.pending(), frozenset(purged))

    def _registered(self) -> list[VectorCollection]:
        return [table() for table in self.tables]
