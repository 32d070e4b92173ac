"""A search worker process: the REST search handler on its own interpreter, so searches stop sharing one GIL.

`strata serve` (one process) runs the scheduler, the token check, admission control, MCP and every
write; under load it hands `/api/search` to a few of these (`search_pool.py`). Each builds the
services from the same settings (read-only use: it never ingests, repairs or runs a job), keeps
its own in-memory vector copies, which follow the server's commits like any other process's
(`vector_cache.py`), and answers one search at a time over a pipe with the response's JSON bytes,
made by the route's own response field (the same bytes FastAPI sends), and the message ids the
search would have counted as accessed: the server records them, so access counts keep one writer.
"""

from __future__ import annotations

import logging
import pickle
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from app.api.routes import search as search_route
from app.api.schemas import SearchIn, SearchOut
from app.bootstrap import build_services
from app.core.clock import FixedClock, SystemClock
from app.core.embeddings.factory import build_embedder
from app.core.logs.setup import configure_logging
from app.core.settings import Settings

log = logging.getLogger(__name__)

READY = "ready"


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One search: the validated body, and the server's clock (dates, recency: the same answer)."""

    body: SearchIn
    now_ms: int
    # The model the server searches with: after a re-embed switched it, an older worker retires.
    model_id: str = ""
    # Query vectors the server made with that model in a batch (query_batch.py): they go into
    # this worker's query cache, so its search runs no model for those texts.
    vectors: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class SearchDone:
    """The response body as FastAPI would send it, and the ids to count as accessed."""

    body: bytes
    accessed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SearchFailed:
    """The worker could not answer (an error, bad input): the server runs the search itself,
    which raises the same error through the usual error handlers."""

    reason: str
    retire: bool = False  # the worker no longer matches the server (its model): stop it


class _Accesses:
    """Stands in for the access tracker: collects the ids instead of writing them."""

    def __init__(self) -> None:
        self.ids: list[int] = []

    def record(self, ids: Any) -> None:
        self.ids.extend(ids)


def response_bytes(out: SearchOut) -> bytes:
    """`out` encoded exactly as FastAPI encodes the search route's return value (its fast path:
    the response field validates, then serializes to JSON bytes by alias)."""
    field = _response_field()
    value, errors = field.validate(out, {}, loc=("response",))
    if errors:
        raise ValueError(f"search response does not match SearchOut: {errors}")
    return bytes(field.serialize_json(value, by_alias=True))


def _response_field() -> Any:
    for route in search_route.router.routes:
        field = getattr(route, "response_field", None)
        if field is not None and getattr(route, "path", "") == "/search":
            return field
    raise RuntimeError("the search route has no response field")


def run(conn: Connection, settings: Settings) -> None:
    """The worker's main loop: build the services, warm up, say ready, answer until told to stop."""
    # The server stops its workers itself; a Ctrl+C in the terminal reaches the whole group.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A spawned process starts with no logging: the server's set-up, into the same file.
    configure_logging(settings.layout.logs, settings.log_level)
    clock = FixedClock(SystemClock().now_ms())
    # One intra-op thread: the workers are the parallelism, and a second ONNX thread per query
    # cost ~0.5 ms more CPU (4.7 against 4.2 ms a query, docs/benchmarks.md). Other providers
    # are built as the composition root builds them (the OpenAI key is resolved there).
    embedder = (
        build_embedder(settings.embedding, threads=1) if settings.embedding.provider == "local" else None
    )
    services = build_services(settings, clock=clock, embedder=embedder)
    accesses = _Accesses()
    services.memory.searcher.access = accesses  # type: ignore[assignment]
    try:
        _warm_up(services, clock)
        conn.send_bytes(pickle.dumps(READY))
        while True:
            try:
                job = pickle.loads(conn.recv_bytes())
            except EOFError:
                return  # the server went away
            if job is None:
                return
            conn.send_bytes(pickle.dumps(_answer(services, clock, accesses, job)))
    except BrokenPipeError:
        return  # the server stopped this worker (or exited) while it warmed up or searched
    finally:
        services.close()


def _warm_up(services: Any, clock: FixedClock) -> None:
    """Load the model and the vector copies before taking real searches (the first costs seconds)."""
    clock.set(SystemClock().now_ms())
    try:
        search_route._search(services, SearchIn.model_validate({"query": "warm up the search worker"}))
    except Exception:  # an empty or broken archive still serves: each search reports its own error
        log.debug("search worker warm-up failed", exc_info=True)


def _answer(services: Any, clock: FixedClock, accesses: _Accesses, job: SearchJob) -> object:
    accesses.ids.clear()
    if job.model_id and job.model_id != services.embedder.model_id:
        return SearchFailed(f"searches with {services.embedder.model_id}, not {job.model_id}", retire=True)
    clock.set(job.now_ms)
    remember = getattr(services.embedder, "remember_queries", None)
    if job.vectors and remember is not None:
        remember(dict(job.vectors))
    try:
        body = response_bytes(search_route._search(services, job.body))
    except Exception as exc:
        return SearchFailed(f"{type(exc).__name__}: {exc}")
    return SearchDone(body, tuple(accesses.ids))
