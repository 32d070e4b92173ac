"""The embedding backlog: rows stored (and keyword-searchable) at once, embedded later in pipelined batches.

A large import stores rows and their keyword entries first, so exact words find them the moment
they commit; the rows without an embedding stamp are the backlog (`pending`, served by a partial
index). `drain` embeds it in three overlapping stages, so the model never waits for SQLite or
LanceDB: a reader thread loads and encodes the next batch, the calling thread runs the model,
a writer thread upserts the vectors and then stamps the rows (stamp after vector, as everywhere:
a process killed mid-drain leaves rows unstamped, and the next drain takes them again).

One process drains at a time (an exclusive claim in `locks`), never beside another process's
writer (that one embeds its own rows), and it holds the kind's writer lease while it does, so
repair never re-embeds the same rows beside it. Long-lived processes run
a worker thread (`notify`), the CLI waits for it with progress (`wait`).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from sqlalchemy.orm import Session

from app.core.index.corpus import Corpus, IndexDoc
from app.core.index.lease import WriterLeases
from app.core.storage.db import Database

log = logging.getLogger(__name__)

# Two batches ready ahead of the model, two behind it: enough to hide SQLite and LanceDB latency,
# little enough to keep memory flat (256 documents × 384 floats is 0.4 MB).
_AHEAD = 2
# The writer merges what has queued up into one LanceDB commit (fewer table versions).
_MAX_COMMIT_ROWS = 2048
_RETRY_AFTER_S = 30.0
# A drain this large has left hundreds of small LanceDB fragments behind; compact them once.
_COMPACT_AFTER_ROWS = 5000


class BacklogSource(Protocol):
    """The rows of a kind that have no vector yet."""

    def pending(self, session: Session, after: int, limit: int) -> list[int]: ...

    def pending_count(self, session: Session) -> int: ...

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]: ...

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None: ...


@dataclass(frozen=True, slots=True)
class BacklogStatus:
    """What a progress line or a status label shows."""

    pending: int  # rows stored but not embedded yet
    running: bool  # this process is embedding them now
    drainer: str | None  # `pid:token` of the process embedding them (this one or another)
    embedded: int  # rows this process's current (or last) drain embedded
    rate: float | None  # messages per second of that drain
    error: str | None = None  # why the last drain stopped, if it failed

    @property
    def eta_seconds(self) -> float | None:
        if not self.pending:
            return 0.0
        return self.pending / self.rate if self.rate else None

    def to_dict(self) -> dict[str, object]:
        eta = self.eta_seconds
        return {
            "pending": self.pending,
            "running": self.running,
            "drainer_pid": int(self.drainer.split(":")[0]) if self.drainer else None,
            "embedded": self.embedded,
            "rate_per_s": round(self.rate, 1) if self.rate else None,
            "eta_seconds": round(eta, 1) if eta is not None else None,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class DrainReport:
    embedded: int
    seconds: float
    busy_with: str | None = None  # another process holds the drain claim
    stopped: bool = False  # `stop` was set before the backlog was empty


class EmbeddingBacklog:
    def __init__(
        self,
        db: Database,
        corpus: Corpus,
        source: BacklogSource,
        leases: WriterLeases | None,
        *,
        batch_size: int = 256,
    ) -> None:
        self.db = db
        self.corpus = corpus
        self.source = source
        self.leases = leases
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._worker: threading.Thread | None = None
        self._running = False
        self._embedded = 0
        self._started = 0.0
        self._error: str | None = None
        self._claim = f"backlog:{corpus.kind}"
        # False in a short-lived process that will not wait for the vectors (`import --no-wait`):
        # deferred ingest then leaves the backlog to the next drain instead of loading the model.
        self.autostart = True

    # -- status -------------------------------------------------------------------------------
    def pending(self) -> int:
        with self.db.read() as session:
            return self.source.pending_count(session)

    def status(self) -> BacklogStatus:
        pending = self.pending()
        with self._lock:
            running, embedded, started, error = self._running, self._embedded, self._started, self._error
        elapsed = time.monotonic() - started if started else 0.0
        rate = embedded / elapsed if embedded and elapsed > 0 else None
        drainer = self.leases.holder(self._claim) if self.leases is not None and pending else None
        return BacklogStatus(pending, running, drainer, embedded, rate, error)

    # -- draining -----------------------------------------------------------------------------
    def drain(self, *, stop: threading.Event | None = None) -> DrainReport:
        """Embed every row of the backlog (rows added meanwhile too); returns when it is empty,
        when `stop` is set (after writing what was embedded), or at once when another process
        is draining."""
        stop = stop or threading.Event()
        began = time.monotonic()
        if self.leases is None:
            return self._drain_all(stop, began)
        with self.leases.claim(self._claim) as holder:
            if holder is not None:
                return DrainReport(0, 0.0, busy_with=holder)
            # Another process storing and embedding inline would embed these rows itself.
            own = f"{os.getpid()}:"
            writers = [t for t in self.leases.live(self.corpus.kind) if not t.startswith(own)]
            if writers:
                return DrainReport(0, 0.0, busy_with=writers[0])
            with self.corpus.writing():
                return self._drain_all(stop, began)

    def _drain_all(self, stop: threading.Event, began: float) -> DrainReport:
        with self._lock:
            self._running, self._embedded, self._started, self._error = True, 0, began, None
        try:
            total = 0
            while not stop.is_set():
                # One pass walks the ids upward; edits reset stamps below the cursor, hence the loop.
                done = self._pass(stop)
                total += done
                if not done or not self.pending():
                    break
            if total >= _COMPACT_AFTER_ROWS:
                self._compact()
            stopped = stop.is_set() and bool(self.pending())
            return DrainReport(total, time.monotonic() - began, stopped=stopped)
        finally:
            with self._lock:
                self._running = False

    def _compact(self) -> None:
        """Merge the many small fragments a long drain leaves (one per commit) into few."""
        try:
            self.corpus.collection.optimize()
        except Exception:  # compaction is an optimization: a failure leaves a correct table
            log.warning("embedding backlog: compacting the vector table failed", exc_info=True)

    def _pass(self, stop: threading.Event) -> int:
        prepared: queue.Queue[list[IndexDoc] | None] = queue.Queue(maxsize=_AHEAD)
        embedded: queue.Queue[tuple[list[IndexDoc], np.ndarray] | None] = queue.Queue(maxsize=_AHEAD)
        failure: list[BaseException] = []
        halt = threading.Event()  # a stage failed: the others stop too
        done = 0

        def read() -> None:
            after = 0
            try:
                while not (stop.is_set() or halt.is_set()):
                    with self.db.read() as session:
                        ids = self.source.pending(session, after, self.batch_size)
                        if not ids:
                            break
                        docs = self.source.documents(session, [str(i) for i in ids])
                    after = ids[-1]
                    if docs:
                        _put(prepared, docs, halt)
            except BaseException as exc:  # reported on the calling thread
                failure.append(exc)
                halt.set()
            finally:
                _put(prepared, None, None)

        # Vectors, collection and stamps of one pass name one model, even if a re-embed job
        # switches models meanwhile (rows stamped with the old one are then its to redo).
        model, dims = self.corpus.embedder.model_id, self.corpus.embedder.dimensions
        collection = self.corpus.collection_for(model, dims)

        def write() -> None:
            nonlocal done
            try:
                while True:
                    item = embedded.get()
                    if item is None:
                        return
                    docs, vectors = list(item[0]), [item[1]]
                    finished = False
                    # Merge whatever else is already waiting into the same commit.
                    while len(docs) < _MAX_COMMIT_ROWS:
                        try:
                            more = embedded.get_nowait()
                        except queue.Empty:
                            break
                        if more is None:
                            finished = True
                            break
                        docs += more[0]
                        vectors.append(more[1])
                    # Documents without text (a row with nothing to embed) are stamped only.
                    embeddable = [d for d in docs if d.document]
                    if embeddable:
                        self.corpus.put_vectors(embeddable, np.concatenate(vectors), collection)
                    with self.db.write() as session:
                        self.source.stamp(session, docs, model, dims)
                    done += len(embeddable)
                    with self._lock:
                        self._embedded += len(embeddable)
                    if finished:
                        return
            except BaseException as exc:
                failure.append(exc)
                halt.set()
                while embedded.get() is not None:  # unblock the model stage
                    pass

        reader = threading.Thread(target=read, name="strata-backlog-read", daemon=True)
        writer = threading.Thread(target=write, name="strata-backlog-write", daemon=True)
        reader.start()
        writer.start()
        read_all = False
        try:
            while not (halt.is_set() or stop.is_set()):
                docs = prepared.get()
                if docs is None:
                    read_all = True
                    break
                texts = [d.document for d in docs if d.document]
                dims = self.corpus.embedder.dimensions
                vectors = (
                    self.corpus.embedder.embed_documents(texts) if texts else np.zeros((0, dims), np.float32)
                )
                _put(embedded, (docs, vectors), halt)
        except BaseException as exc:
            failure.append(exc)
            halt.set()
        finally:
            embedded.put(None)
            writer.join()
            while not read_all:  # let the reader finish if it is blocked on a full queue
                read_all = prepared.get() is None
            reader.join()
        if failure:
            raise failure[0]
        return done

    # -- background worker --------------------------------------------------------------------
    def notify(self) -> None:
        """Rows were added to the backlog: make sure this process's worker drains them."""
        if not self.autostart:
            return
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._closing.clear()
                self._worker = threading.Thread(target=self._work, name="strata-backlog", daemon=True)
                self._worker.start()
        self._wake.set()

    def _work(self) -> None:
        while not self._closing.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._closing.is_set():
                return
            try:
                report = self.drain(stop=self._closing)
                if report.busy_with is not None and not self._closing.wait(_RETRY_AFTER_S / 3):
                    self._wake.set()  # another process drains; look again later (it may stop)
            except Exception as exc:  # a model or storage fault: logged, retried later
                log.exception("embedding backlog: drain failed; retrying in %.0f s", _RETRY_AFTER_S)
                with self._lock:
                    self._error = str(exc)
                if not self._closing.wait(_RETRY_AFTER_S):
                    self._wake.set()

    def wait(
        self,
        progress: Callable[[BacklogStatus], None] | None = None,
        *,
        poll_s: float = 0.5,
        timeout_s: float | None = None,
    ) -> BacklogStatus:
        """Block until the backlog is empty (starting the worker if needed), reporting progress.

        Returns early when another process is draining it or the drain failed (the status says
        which), or after `timeout_s`."""
        deadline = time.monotonic() + timeout_s if timeout_s is not None else None
        self.autostart = True
        self.notify()
        while True:
            status = self.status()
            if progress is not None:
                progress(status)
            if not status.pending and not status.running:
                return status
            if status.error is not None and not status.running:
                return status
            with self._lock:
                started = self._running or self._wake.is_set()
            if (
                not started
                and status.drainer is not None
                and not status.drainer.startswith(f"{os.getpid()}:")
            ):
                return status  # another process holds the claim
            if deadline is not None and time.monotonic() >= deadline:
                return status
            time.sleep(poll_s)

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop the worker after the batch in flight is written (what it embedded is kept)."""
        self._closing.set()
        self._wake.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout_s)


def _put(target: queue.Queue, item: object, halt: threading.Event | None) -> None:  # type: ignore[type-arg]
    """Put, giving up when `halt` is set (the consumer died), so no stage blocks forever."""
    while True:
        try:
            target.put(item, timeout=0.2)
            return
        except queue.Full:
            if halt is not None and halt.is_set():
                return
