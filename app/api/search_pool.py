"""Search worker processes for `strata serve`: started under load, stopped when idle, one search each.

One process holds one GIL: at 20 concurrent clients the server's searches used ~1.5 of 2 cores,
because the Python part of every search waits for the same lock (docs/benchmarks.md, "REST
search in worker processes"). The pool hands `/api/search` to up to `api.search_workers`
processes (`search_worker.py`) while the server keeps everything else: token, admission control,
MCP, the scheduler, every write, and the access counts (a worker returns the ids, the server
records them).

- A worker starts when a search arrives while another is still running (load), never for a
  single client: a person searching now and then pays no memory for it. It loads the model and
  its vector copies before it takes a search (the server answers in-process meanwhile).
- A worker nobody used for `api.search_worker_idle_seconds` is stopped, which gives its memory
  (model, copies, imports: about 0.5-0.7 GB at 100k messages) back to the system.
- The server answers in-process while fewer workers than cores are ready (one search per core
  left over, beside the workers; every search before the first worker is ready), for a few
  seconds after any write of its own (a worker's vector copy catches up with another process's
  commit within a second; a search right after `remember` must find the note), and whenever a
  worker fails (the error then comes from the same code, through the usual handlers).

Everything here runs on the server's event loop (no locks): pipes are watched with `add_reader`,
so a search handed to a worker costs the server no thread at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from starlette.types import Scope

from app.api import search_worker
from app.api.query_batch import QueryBatcher, Ticket, first_text, search_request
from app.api.schemas import SearchIn
from app.core.events import Change, EventBus
from app.core.settings import Settings

log = logging.getLogger(__name__)

# A write of this process (remember, import, delete, forgetting…) keeps searches in-process for
# this long: a worker's copy follows another process's commit within ~0.3-0.5 s at 100k rows.
FRESH_WRITE_SECONDS = 2.0
# How often idle workers are looked for.
REAP_EVERY_SECONDS = 5.0
# A worker told to stop gets this long to exit before it is terminated (then killed).
STOP_SECONDS = 5.0
# A worker that died before it was ready (say, out of memory) is not started again for this long:
# the server serves in-process meanwhile rather than spawning one per search.
RETRY_START_SECONDS = 60.0


@dataclass(eq=False)
class _Worker:
    process: Any  # multiprocessing.Process (spawn context)
    conn: Connection
    ready: bool = False
    busy: asyncio.Future[object] | None = None
    # The search it runs was given up (its request cancelled): its reply is dropped on arrival.
    orphaned: bool = False
    used_at: float = field(default_factory=time.monotonic)
    served: int = 0


@dataclass(frozen=True, slots=True)
class PoolStats:
    workers: int
    ready: int
    busy: int
    started: int
    stopped: int
    in_worker: int
    in_process: int
    # Searches handed to a worker with their query's vector from a batch (query_batch.py).
    with_vector: int = 0


class SearchPool:
    def __init__(
        self,
        settings: Settings,
        *,
        workers: int,
        idle_seconds: float,
        record_access: Callable[[tuple[int, ...]], None],
        now_ms: Callable[[], int],
        model_id: Callable[[], str] = lambda: "",
        events: EventBus | None = None,
        reap_every: float = REAP_EVERY_SECONDS,
        batcher: QueryBatcher | None = None,
        search_texts: Callable[[str, bool], Sequence[str] | None] | None = None,
    ) -> None:
        self.settings = settings
        self.reap_every = reap_every
        # About one search per core at a time: the server runs searches itself only while fewer
        # workers than cores are ready (its own GIL also serves every request's HTTP).
        self.cores = os.cpu_count() or 2
        self.max_workers = workers
        self.idle_seconds = idle_seconds
        self._record_access = record_access
        self._now_ms = now_ms
        self._model_id = model_id
        self._workers: list[_Worker] = []
        self._waiting: deque[asyncio.Future[_Worker | None]] = deque()
        self._in_process = 0  # searches running in-process now
        self._written_at = float("-inf")
        self._failed_at = float("-inf")
        self._reaper: asyncio.TimerHandle | None = None
        # Processes of dropped workers until they are reaped: one that dies on its own is seen
        # (pipe closed) a moment before it can be waited for, and one told to stop may take
        # longer than `stop_seconds` to exit on a loaded machine; the reaper waits for both.
        self._exiting: list[Any] = []
        self.stop_seconds = STOP_SECONDS
        self._closed = False
        self.started = self.stopped = self.in_worker = self.in_process = self.with_vector = 0
        # Embeds waiting searches' queries together in this process (None: each worker its own).
        self.batcher = batcher
        # The texts a search (query, dated) embeds before its first ranking, all batched
        # (`MessageSearcher.texts_to_embed`: a query naming people needs a second one); None, or
        # None from it, batches the first text alone.
        self._search_texts = search_texts
        if events is not None:
            events.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        self._written_at = time.monotonic()  # from any thread: one float, read on the loop

    def stats(self) -> PoolStats:
        ready = [w for w in self._workers if w.ready]
        return PoolStats(
            len(self._workers),
            len(ready),
            sum(w.busy is not None for w in ready),
            self.started,
            self.stopped,
            self.in_worker,
            self.in_process,
            self.with_vector,
        )

    def pids(self) -> list[int]:
        """Process ids of the workers (started or ready)."""
        return [w.process.pid for w in self._workers]

    # -- answering ----------------------------------------------------------------------------
    async def answer(self, body: SearchIn, in_process: Callable[[], Any]) -> Any:
        """The search's JSON bytes from a worker, or `in_process()`'s result (run on a thread)."""
        texts = self._texts(body.query, body.since is not None or body.until is not None)
        worker = await self._acquire(texts)  # None: an in-process lane, already counted as taken
        if worker is not None:
            try:
                try:
                    vectors = await self._vectors(texts)
                except asyncio.CancelledError:
                    worker.busy = None  # nothing was sent to it: free again
                    raise
                job = search_worker.SearchJob(body, self._now_ms(), self._model_id(), vectors)
                done = await self._ask(worker, job)
            finally:
                self._release(worker)
            if isinstance(done, search_worker.SearchDone):
                self.in_worker += 1
                if done.accessed:
                    self._record_access(done.accessed)
                return done.body
            if isinstance(done, search_worker.SearchFailed) and done.retire and worker in self._workers:
                log.info("search worker %s retired: %s", worker.process.pid, done.reason)
                self._drop(worker)
                _stop(worker)
                asyncio.get_running_loop().run_in_executor(None, _join, [worker], self.stop_seconds)
            # SearchFailed or a dead worker: the same search in-process reports the error.
            self._in_process += 1
        self.in_process += 1
        try:
            return await asyncio.to_thread(in_process)
        finally:
            self._in_process -= 1
            self._wake_one()

    def queued_request(self, scope: Scope) -> Callable[[], None] | None:
        """The admission gate parked a request: a search's query joins the next batch. Returns
        what the gate calls when the request leaves its queue (it then waits no more there)."""
        batcher = self.batcher
        if batcher is None or self._closed:
            return None
        request = search_request(scope)
        if request is None:
            return None
        tickets = _queued(batcher, self._texts(*request))
        return partial(_withdraw, batcher, tickets) if tickets else None

    def _texts(self, query: str, dated: bool) -> tuple[str, ...]:
        """The texts a search embeds first, to batch (none without a batcher)."""
        if self.batcher is None:
            return ()
        found = self._search_texts(query, dated) if self._search_texts is not None else None
        if found is None:
            return (first_text(query, dated=dated, now_ms=self._now_ms()),)
        return tuple(found)

    async def _vectors(self, texts: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
        """The search's query vectors from batches, for the worker's query cache (a text without
        one is embedded by the worker itself). Waits only for a batch that is making one already."""
        if self.batcher is None:
            return ()
        found = []
        for text in texts:
            vector = self.batcher.take(text)
            if isinstance(vector, Future):
                # asyncio.wait: the batch's own end (even cancelled at close) is not our cancellation.
                await asyncio.wait({asyncio.wrap_future(vector)})
                vector = self.batcher.take(text)
            if vector is not None and not isinstance(vector, Future) and vector[0] == self._model_id():
                found.append((text, vector[1]))
        if found and found[0][0] == texts[0]:
            self.with_vector += 1
        return tuple(found)

    async def _acquire(self, texts: tuple[str, ...]) -> _Worker | None:
        """A free ready worker, or None for an in-process lane (counted here): after a fresh
        write, while lanes are free, with no worker ready."""
        if self._closed or self.max_workers <= 0 or time.monotonic() - self._written_at < FRESH_WRITE_SECONDS:
            self._in_process += 1
            return None
        self._schedule_reaper()
        free = self._free()
        if free is not None:
            return self._take(free)
        busy_now = self._in_process + sum(w.busy is not None for w in self._workers)
        may_start = time.monotonic() - self._failed_at >= RETRY_START_SECONDS
        if busy_now > 0 and len(self._workers) < self.max_workers and may_start:
            self._start_worker()  # load: another search is running
        if self._in_process < self._lanes():
            self._in_process += 1
            return None
        waiter: asyncio.Future[_Worker | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        batcher = self.batcher
        tickets = _queued(batcher, texts, next_up=True) if batcher is not None else []
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted as we were cancelled: give back
                granted = waiter.result()
                if granted is not None:
                    granted.busy = None
                else:
                    self._in_process -= 1
                self._wake_one()
            raise
        finally:
            if batcher is not None:  # it waits no more (a batch has its texts, or not)
                _withdraw(batcher, tickets)

    def _lanes(self) -> int:
        """Searches the server may run itself now: any number with no worker ready (as without
        workers; admission control bounds them), else the cores the ready workers leave."""
        ready = sum(w.ready for w in self._workers)
        return max(0, self.cores - ready) if ready else 1 << 30

    def _free(self) -> _Worker | None:
        for worker in self._workers:
            if worker.ready and worker.busy is None:
                return worker
        return None

    def _take(self, worker: _Worker) -> _Worker:
        worker.busy = asyncio.get_running_loop().create_future()  # its reply resolves this
        return worker

    def _release(self, worker: _Worker) -> None:
        worker.used_at = time.monotonic()
        self._wake_one()

    def _wake_one(self) -> None:
        """Hand a free worker (or, with none free, a free in-process lane) to the oldest waiter."""
        while self._waiting:
            waiter = self._waiting[0]
            if waiter.done():  # cancelled (the client went away)
                self._waiting.popleft()
                continue
            worker = self._free()
            if worker is not None:
                self._waiting.popleft()
                waiter.set_result(self._take(worker))
            elif self._in_process < self._lanes():
                self._waiting.popleft()
                self._in_process += 1  # counted now, so the next wake-up sees it taken
                waiter.set_result(None)
            return

    async def _ask(self, worker: _Worker, job: search_worker.SearchJob) -> object:
        reply = worker.busy
        assert reply is not None, "a worker is taken before it is asked"
        try:
            worker.conn.send_bytes(pickle.dumps(job))
        except (OSError, ValueError):
            self._lost(worker)
            return None
        try:
            result = await asyncio.shield(reply)
        except asyncio.CancelledError:
            # The worker is still on it: it stays busy until its reply comes (and is dropped),
            # or the next search sent to it would read this one's answer.
            if not reply.done():
                worker.orphaned = True
            else:
                worker.busy = None
            raise
        worker.busy = None
        worker.served += 1
        return result

    # -- workers ------------------------------------------------------------------------------
    def _start_worker(self) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a threaded server
        parent, child = context.Pipe()
        process = context.Process(
            target=search_worker.run, args=(child, self.settings), name="strata-search", daemon=True
        )
        process.start()
        child.close()
        worker = _Worker(process, parent)
        self._workers.append(worker)
        self.started += 1
        asyncio.get_running_loop().add_reader(parent.fileno(), self._readable, worker)
        log.info("search worker %s starting", process.pid)

    def _readable(self, worker: _Worker) -> None:
        try:
            message = pickle.loads(worker.conn.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError):
            self._lost(worker)
            return
        if message == search_worker.READY:
            worker.ready = True
            worker.used_at = time.monotonic()
            log.info("search worker %s ready", worker.process.pid)
            self._wake_one()
        elif worker.orphaned:
            worker.orphaned, worker.busy = False, None
            self._release(worker)
        elif worker.busy is not None and not worker.busy.done():
            worker.busy.set_result(message)

    def _lost(self, worker: _Worker) -> None:
        """A worker that died or closed its pipe: forget it (its search runs in-process)."""
        if worker not in self._workers:
            return
        log.warning("search worker %s exited (code %s)", worker.process.pid, worker.process.exitcode)
        if not worker.ready:
            self._failed_at = time.monotonic()
        self._drop(worker)
        if worker.busy is not None and not worker.busy.done():
            worker.busy.set_result(None)
        # Dead as a rule; one whose pipe broke while it lives is stopped like an idle one.
        _stop(worker)
        asyncio.get_running_loop().run_in_executor(None, _join, [worker], self.stop_seconds)

    def _drop(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        self.stopped += 1
        self._exiting.append(worker.process)
        self._schedule_reaper()

    def _schedule_reaper(self) -> None:
        if self._reaper is None and not self._closed:
            self._reaper = asyncio.get_running_loop().call_later(self.reap_every, self._reap)

    def _reap(self) -> None:
        """Stop workers nobody used for `idle_seconds` (their memory goes back to the system)."""
        self._reaper = None
        now = time.monotonic()
        for worker in list(self._workers):
            if worker.ready and worker.busy is None and now - worker.used_at >= self.idle_seconds:
                log.info("search worker %s idle: stopping", worker.process.pid)
                self._drop(worker)
                _stop(worker)
                asyncio.get_running_loop().run_in_executor(None, _join, [worker], self.stop_seconds)
        # `exitcode` waits for an exited process without blocking: no zombie stays behind.
        self._exiting = [p for p in self._exiting if p.exitcode is None]
        if self._workers or self._exiting:
            self._schedule_reaper()

    async def close(self) -> None:
        """Stop every worker (the server is shutting down)."""
        self._closed = True
        if self.batcher is not None:
            self.batcher.close()
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        workers, self._workers = list(self._workers), []
        for worker in workers:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(worker.conn.fileno())
            if worker.busy is not None and not worker.busy.done():
                worker.busy.set_result(None)
            _stop(worker)
        for waiter in self._waiting:
            if not waiter.done():
                waiter.set_result(None)
        self._waiting.clear()
        await asyncio.to_thread(_join, workers, self.stop_seconds)
        exiting, self._exiting = self._exiting, []
        await asyncio.to_thread(_wait_exited, exiting)


def _queued(batcher: QueryBatcher, texts: Sequence[str], *, next_up: bool = False) -> list[Ticket]:
    """Tickets of a waiting search for each of its texts (none for a text batched already)."""
    return [t for text in texts if (t := batcher.queued(text, next_up=next_up)) is not None]


def _withdraw(batcher: QueryBatcher, tickets: Sequence[Ticket]) -> None:
    for ticket in tickets:
        batcher.withdraw(ticket)


def _stop(worker: _Worker) -> None:
    """Ask a worker to exit (it finishes nothing: it is idle or the server is stopping)."""
    with contextlib.suppress(OSError, ValueError):
        worker.conn.send_bytes(pickle.dumps(None))
    with contextlib.suppress(OSError):
        worker.conn.close()


def _join(workers: list[_Worker], timeout: float = STOP_SECONDS) -> None:
    """Wait for stopped workers to exit: terminated after `timeout`, killed a second later (a
    stopped or stuck process ignores SIGTERM). One still not gone is left to the reaper."""
    deadline = time.monotonic() + timeout
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.terminate()
            worker.process.join(1.0)
        if worker.process.is_alive():
            log.warning("search worker %s did not stop: killing it", worker.process.pid)
            worker.process.kill()
            worker.process.join(5.0)


def _wait_exited(processes: list[Any], timeout: float = 5.0) -> None:
    """At close: reap the processes of dropped workers (they are dead or being stopped)."""
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
