"""Query embeddings of searches waiting in line, made together in one model call in the server process.

Under load most searches wait: at admission (`admission.py` lets `api.max_concurrent_requests`
run) and for a free search worker (`search_pool.py`). Each used to pay its own model call in its
worker, ~10 word pieces at a time, and about a third of such a call is the same whatever its
length (graph dispatch, tokenizer, pooling). Here the server embeds the texts of searches already
waiting, several in one call of its own model, and hands each search's vector to its worker with
the job; the worker puts it in its query cache, so its search runs no model for that text.

- Only what is already queued is batched, and nothing waits for a batch to fill (no timer): a
  lone search never queues, so it never comes here and pays nothing more.
- A batch starts once `batch_at` texts wait, or sooner when a search waiting for a worker has
  none (then with at least two texts: one text gains nothing from the server doing it).
- A search handed a worker while its text is in the running batch waits for that batch (its
  core is busy with it meanwhile); one whose text is in no batch goes without: its worker embeds
  it, as before.
- A search that stops waiting (admitted, refused, gone, served in the server) withdraws its
  ticket: a text nobody waits for is not embedded by a later batch, nor counted as waiting.
- The vectors are the model's own for the same text: the float model's padding is masked out,
  so a text's vector does not depend on the batch (checked bit for bit, test_query_batch.py);
  an embedder that cannot promise that has no `embed_queries` and gets no batcher.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import parse_qs

import numpy as np
from starlette.types import Scope

from app.api.security import BODY_KEY
from app.bootstrap import Services
from app.core.search.dates import parse_query_dates
from app.core.search.query_vectors import batched

log = logging.getLogger(__name__)

# Texts waiting that start a batch; and the most one call takes (a call of 32 short texts costs
# about as much a text as one of 8: docs/benchmarks.md, "REST: batched query embeddings").
BATCH_AT = 8
MAX_BATCH = 32
# Embedded texts kept for searches still in line (~1.5 KB each).
KEEP = 512
SEARCH_PATH = "/api/search"

Vector = tuple[str, np.ndarray]  # the model that made it, and the vector


@dataclass(frozen=True, slots=True)
class Ticket:
    """One search waiting for `text` (several may wait for the same text)."""

    text: str
    number: int


class QueryBatcher:
    """Collects the texts of waiting searches and embeds them in batches on a thread of its own.

    Thread-safe: the admission gate may report queued requests from any event loop (tests run
    several); batches run on one thread, one at a time."""

    def __init__(
        self,
        embed: Callable[[Sequence[str]], list[np.ndarray]],
        model_id: Callable[[], str],
        *,
        warm: Callable[[], bool] = lambda: True,
        batch_at: int = BATCH_AT,
        max_batch: int = MAX_BATCH,
        keep: int = KEEP,
    ) -> None:
        if batch_at < 2 or max_batch < batch_at:
            raise ValueError("batch_at must be at least 2 and max_batch at least batch_at")
        self._embed = embed
        self._model_id = model_id
        self._warm = warm
        self.batch_at, self.max_batch, self.keep = batch_at, max_batch, keep
        self._lock = threading.Lock()
        # Texts waiting, in no batch yet (in arrival order), each with the tickets of the searches
        # still waiting for it: a text nobody waits for any more is dropped, not embedded later.
        self._pending: dict[str, set[int]] = {}
        self._next_up: set[int] = set()  # of those tickets, searches waiting for a worker
        self._tickets = itertools.count()
        self._running: Future[None] | None = None
        self._running_texts: frozenset[str] = frozenset()
        # The running batch loads the model first (released when idle, ~0.5-1 s): nobody waits for it.
        self._running_cold = False
        self._done: OrderedDict[str, Vector] = OrderedDict()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="strata-query-batch")
        self._closed = False
        self.batches = self.embedded = self.failed = 0

    def queued(self, text: str, *, next_up: bool = False) -> Ticket | None:
        """A search for `text` waits: at admission, or (`next_up`) for a search worker. Its
        ticket must be withdrawn when it stops waiting (None: nothing to withdraw)."""
        with self._lock:
            if self._closed or text in self._done or text in self._running_texts:
                return None
            ticket = Ticket(text, next(self._tickets))
            self._pending.setdefault(text, set()).add(ticket.number)
            if next_up:
                self._next_up.add(ticket.number)
            self._maybe_start()
            return ticket

    def withdraw(self, ticket: Ticket) -> None:
        """The search stopped waiting (it runs now, was refused or went away): a text no other
        search waits for leaves the queue. Its vector, if a batch took it already, stays."""
        with self._lock:
            waiting = self._pending.get(ticket.text)
            if waiting is None or ticket.number not in waiting:
                return  # in a batch already (or the batcher closed)
            waiting.discard(ticket.number)
            self._next_up.discard(ticket.number)
            if not waiting:
                del self._pending[ticket.text]

    def waiting(self) -> int:
        """Texts queued for a batch that has not started."""
        with self._lock:
            return len(self._pending)

    def take(self, text: str) -> Vector | Future[None] | None:
        """The vector for `text` if made; the running batch's future if it is being made (wait,
        then ask again); None if it is in no batch (the search's worker embeds it)."""
        with self._lock:
            found = self._done.get(text)
            if found is not None:
                self._done.move_to_end(text)
                return found
            if text in self._running_texts and self._running is not None:
                return None if self._running_cold else self._running
            return None

    def _maybe_start(self) -> None:
        """Start a batch if none runs and enough texts wait (under the lock)."""
        if self._running is not None or self._closed or not self._pending:
            return
        waiting = len(self._pending)
        urgent = bool(self._next_up)
        if waiting < self.batch_at and not (urgent and waiting >= 2):
            return
        texts = list(self._pending)[: self.max_batch]
        for text in texts:
            self._next_up.difference_update(self._pending.pop(text))
        self._running_texts = frozenset(texts)
        self._running_cold = not self._warm()
        self._running = self._executor.submit(self._run, texts)

    def _run(self, texts: list[str]) -> None:
        model = self._model_id()
        try:
            vectors: list[np.ndarray] | None = self._embed(texts)
        except Exception:  # the searches' workers embed these themselves and report any error
            log.warning("batched query embedding failed", exc_info=True)
            vectors = None
        with self._lock:
            if vectors is not None:
                for text, vector in zip(texts, vectors, strict=True):
                    self._done[text] = (model, vector)
                    self._done.move_to_end(text)
                while len(self._done) > self.keep:
                    self._done.popitem(last=False)
                self.batches += 1
                self.embedded += len(texts)
                log.debug("embedded %d waiting searches' queries in one call", len(texts))
            else:
                self.failed += 1
            self._running, self._running_texts = None, frozenset()
            self._maybe_start()  # texts that came meanwhile

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._pending.clear()
            self._next_up.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)


def first_text(query: str, *, dated: bool, now_ms: int) -> str:
    """The text a search embeds first, as `MessageSearcher.search_understood` derives it: the
    query without surrounding spaces, less a date phrase it turns into a range (unless the
    request gives its own dates). A text that differs only costs a vector nobody takes."""
    text = query.strip()
    if dated:
        return text
    parsed = parse_query_dates(text, now_ms)
    return parsed.text if parsed.range is not None else text


def queued_search_text(scope: Scope, now_ms: int) -> str | None:
    """The first text of a search parked at admission: a `GET /api/search`'s query string, or a
    `POST /api/search`'s JSON body (the guard read it already: `security.BODY_KEY`); else None."""
    request = search_request(scope)
    return None if request is None else first_text(request[0], dated=request[1], now_ms=now_ms)


def search_request(scope: Scope) -> tuple[str, bool] | None:
    """The query of a search parked at admission and whether the request brings its own dates
    (`since` or `until`): from a `GET /api/search`'s query string or a `POST /api/search`'s JSON
    body (the guard read it already: `security.BODY_KEY`); else None."""
    if scope.get("path") != SEARCH_PATH:
        return None
    if scope.get("method") == "POST":
        return _posted_request(scope.get(BODY_KEY))
    if scope.get("method") != "GET":
        return None
    # As Starlette reads it (a repeated parameter: the last one).
    params = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    query = params.get("q")
    if not query or not query[-1].strip():
        return None
    return query[-1], "since" in params or "until" in params


def _posted_request(body: object) -> tuple[str, bool] | None:
    """The query of a search body as `SearchIn` reads it, and whether it is dated (a non-null
    `since` or `until`); None for a body it would refuse anyway (the request gets its 422 as before)."""
    if not isinstance(body, bytes):
        return None
    try:
        fields = json.loads(body)
    except ValueError:  # UnicodeDecodeError is one
        return None
    if not isinstance(fields, dict):
        return None
    query = fields.get("query")
    if not isinstance(query, str) or not query.strip():
        return None
    return query, fields.get("since") is not None or fields.get("until") is not None


def query_batcher(services: Services) -> QueryBatcher | None:
    """A batcher on the server's own embedder, or None when it cannot batch with the same vectors
    (int8 query activations are scaled per call: `query_vectors.batched`)."""
    embedder = services.embedder
    embed = batched(embedder)
    if embed is None:
        return None

    def warm() -> bool:  # the model that runs now (a switchable embedder's active one) is loaded
        return bool(getattr(getattr(embedder, "active", embedder), "loaded", True))

    return QueryBatcher(embed, lambda: embedder.model_id, warm=warm)
