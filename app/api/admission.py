"""Admission control for the REST API: a few requests run, a bounded queue waits, the rest get 503.

Handlers are synchronous and run in a thread pool, so on a 2-core machine twenty requests at once
do not finish sooner than four: they share the cores (and the GIL) and every one of them gets
slow. The gate lets `max_concurrent` requests run, parks up to `max_queued` more in arrival order
for at most `max_wait_seconds`, and answers anything beyond that at once with 503 and a
`Retry-After` estimated from recent service times, so an overloaded server says so instead of
letting clients wait without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.security import error_response

log = logging.getLogger(__name__)

# Liveness must answer while the server is busy; MCP's streamable HTTP holds long-lived streams
# (an SSE GET per session) that would pin slots, and it has its own session manager.
UNGATED_PATHS = ("/api/health",)
GATED_PREFIX = "/api/"


@dataclass(frozen=True, slots=True)
class GateLimits:
    """`api.max_concurrent_requests`, `api.max_queued_requests`, `api.max_queue_wait_seconds`."""

    max_concurrent: int = 4
    max_queued: int = 64
    max_wait_seconds: float = 5.0

    def __post_init__(self) -> None:
        if self.max_concurrent < 1 or self.max_queued < 0 or self.max_wait_seconds <= 0:
            raise ValueError("max_concurrent ≥ 1, max_queued ≥ 0 and max_wait_seconds > 0 are required")


@dataclass(frozen=True, slots=True)
class GateStats:
    running: int
    queued: int
    admitted: int
    rejected: int
    mean_service_ms: float


class AdmissionGate:
    """ASGI middleware; counters sit under a thread lock because test clients may drive the app
    from several event loops at once (one per thread), and a queued waiter is woken on its own loop."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limits: GateLimits | None = None,
        on_queue: Callable[[Scope], Callable[[], None] | None] | None = None,
    ) -> None:
        self.app = app
        self.limits = limits or GateLimits()
        # Told of each request parked in the queue (the search pool embeds waiting searches'
        # queries together, query_batch.py); it must be quick and never fail the request. What
        # it returns, if anything, is called once the request leaves the queue (admitted,
        # refused or gone), so a waiting request's query is not embedded after it stopped waiting.
        self.on_queue = on_queue
        self._lock = threading.Lock()
        self._running = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        # Waiters a slot was handed to whose wake-up has not run yet (see _enter's give-up path).
        self._handed: set[asyncio.Future[None]] = set()
        self._admitted = 0
        self._rejected = 0
        # Exponentially weighted mean service time, for Retry-After (seeded with a typical search).
        self._service_s = 0.05

    def stats(self) -> GateStats:
        with self._lock:
            return GateStats(
                self._running, len(self._waiters), self._admitted, self._rejected, self._service_s * 1000
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(GATED_PREFIX) or path in UNGATED_PATHS:
            await self.app(scope, receive, send)
            return
        if not await self._enter(scope):
            await self._reject(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            self._leave(time.perf_counter() - started)

    async def _enter(self, scope: Scope) -> bool:
        """True once a slot is ours; False when the queue is full or the wait ran out."""
        with self._lock:
            if self._running < self.limits.max_concurrent and not self._waiters:
                self._running += 1
                self._admitted += 1
                return True
            if len(self._waiters) >= self.limits.max_queued:
                self._rejected += 1
                return False
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
        left: Callable[[], None] | None = None
        if self.on_queue is not None:
            try:
                left = self.on_queue(scope)
            except Exception:
                log.warning("admission queue hook failed", exc_info=True)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.limits.max_wait_seconds)
        except (TimeoutError, asyncio.CancelledError) as exc:
            with self._lock:
                granted = waiter in self._handed
                if granted:
                    self._handed.discard(waiter)
                else:
                    waiter.cancel()
                    self._remove(waiter)
                    self._rejected += isinstance(exc, TimeoutError)
            if granted:
                # The slot was handed over just as we gave up: pass it on rather than leak it.
                self._leave(None)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return False
        finally:
            if left is not None:
                try:
                    left()
                except Exception:
                    log.warning("admission queue hook failed", exc_info=True)
        with self._lock:
            self._handed.discard(waiter)
            self._admitted += 1
        return True

    def _remove(self, waiter: asyncio.Future[None]) -> None:
        with contextlib.suppress(ValueError):  # already handed a slot and popped
            self._waiters.remove(waiter)

    def _leave(self, elapsed: float | None) -> None:
        """Hand the slot to the oldest live waiter, or free it."""
        with self._lock:
            if elapsed is not None:
                self._service_s = 0.9 * self._service_s + 0.1 * elapsed
            while self._waiters:
                waiter = self._waiters.popleft()
                if waiter.done():
                    continue
                # The slot passes straight to the waiter (running stays the same), so a newcomer
                # cannot overtake the queue between our release and its wake-up.
                self._handed.add(waiter)
                waiter.get_loop().call_soon_threadsafe(_grant, waiter)
                return
            self._running -= 1

    def retry_after(self) -> int:
        """Seconds until the queue ahead of a new request has likely drained (1-30)."""
        with self._lock:
            backlog = len(self._waiters) + self._running
            estimate = backlog * self._service_s / self.limits.max_concurrent
        return max(1, min(30, math.ceil(estimate)))

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        seconds = self.retry_after()
        response = error_response(
            503,
            "overloaded",
            f"the server is busy ({self.limits.max_concurrent} requests running, "
            f"{self.limits.max_queued} waiting); try again in {seconds} s",
            "retry after the Retry-After delay; api.max_concurrent_requests and "
            "api.max_queued_requests in settings.toml set the limits",
        )
        response.headers["Retry-After"] = str(seconds)
        await response(scope, receive, send)


def _grant(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
