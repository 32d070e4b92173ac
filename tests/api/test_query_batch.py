"""Waiting searches' queries embedded together in the server (query_batch.py): when a batch runs,
what it holds, what a search handed a worker gets, and that the texts are the ones searches embed."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future

import numpy as np
import pytest

from app.api.query_batch import QueryBatcher, first_text, query_batcher, queued_search_text
from app.api.security import BODY_KEY
from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.domain import SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.settings import Settings
from tests.conftest import NOW_MS, make_message


class Model:
    """Embeds like the test embedder and notes each call; `hold` keeps a call running."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.inner = HashingEmbedder()
        self.fail = False

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls.append(list(texts))
        self.hold.wait(10)
        if self.fail:
            raise RuntimeError("the model could not run")
        return [self.inner.embed_query(t) for t in texts]


@pytest.fixture
def model() -> Model:
    return Model()


@pytest.fixture
def batcher(model: Model) -> Iterator[QueryBatcher]:
    made = QueryBatcher(model.embed, lambda: "hash", batch_at=3)
    yield made
    made.close()


def _settle(batcher: QueryBatcher) -> None:
    running = batcher._running
    if running is not None:
        running.result(10)


def test_a_lone_waiting_search_is_left_to_its_worker(batcher: QueryBatcher, model: Model) -> None:
    served = batcher.queued("budget approved")
    batcher.queued("offsite plans", next_up=False)
    _settle(batcher)
    assert model.calls == []  # two texts at admission: fewer than batch_at, nobody next
    assert served is not None and batcher.take("budget approved") is None  # its worker embeds it
    batcher.withdraw(served)  # it waits no more
    batcher.queued("login bug", next_up=True)
    _settle(batcher)
    # One text left waiting for a worker ("offsite plans" at admission, "login bug" next up):
    # two texts, and one is needed soon, so they go together.
    assert model.calls == [["offsite plans", "login bug"]]


def test_enough_waiting_texts_go_in_one_call(batcher: QueryBatcher, model: Model) -> None:
    for text in ("a", "b", "a", "c"):
        batcher.queued(text)
    _settle(batcher)
    assert model.calls == [["a", "b", "c"]]
    found = batcher.take("b")
    assert isinstance(found, tuple) and found[0] == "hash"
    np.testing.assert_array_equal(found[1], HashingEmbedder().embed_query("b"))
    for text in ("b", "c", "a"):  # made already: not embedded again
        batcher.queued(text)
    _settle(batcher)
    assert (batcher.batches, batcher.embedded, len(model.calls)) == (1, 3, 1)


def test_a_text_nobody_waits_for_any_more_is_not_embedded(batcher: QueryBatcher, model: Model) -> None:
    # A search parked at admission that was then served in the server, refused or cancelled:
    # its text used to stay queued, be embedded by a later batch and count as batched (the race
    # behind session 10's CI failure of test_query_batch_served).
    gone = batcher.queued("served in the server")
    twice = [batcher.queued("asked twice"), batcher.queued("asked twice")]
    assert gone is not None and twice[0] is not None and batcher.waiting() == 2
    batcher.withdraw(gone)
    batcher.withdraw(twice[0])  # the other search for the same text still waits
    assert batcher.waiting() == 1
    batcher.queued("next one", next_up=True)
    _settle(batcher)
    assert model.calls == [["asked twice", "next one"]] and batcher.waiting() == 0
    # Withdrawing a ticket whose text a batch took is harmless, even once the text waits again.
    batcher.withdraw(twice[1])  # type: ignore[arg-type]
    again = batcher.queued("served in the server")
    batcher.withdraw(gone)
    assert again is not None and batcher.waiting() == 1
    batcher.withdraw(again)
    assert batcher.waiting() == 0


def test_a_search_served_during_its_batch_waits_for_it(batcher: QueryBatcher, model: Model) -> None:
    model.hold.clear()
    for text in ("x", "y", "z"):
        batcher.queued(text)
    running = batcher.take("y")
    assert isinstance(running, Future) and not running.done()
    batcher.queued("later one")  # arrives while the batch runs: the next batch
    batcher.queued("later two", next_up=True)
    model.hold.set()
    running.result(10)
    found = batcher.take("y")
    assert isinstance(found, tuple)
    _settle(batcher)
    assert model.calls == [["x", "y", "z"], ["later one", "later two"]]


def test_a_batch_that_loads_the_model_keeps_nobody_waiting(model: Model) -> None:
    model.hold.clear()
    cold = QueryBatcher(model.embed, lambda: "hash", batch_at=2, warm=lambda: False)
    try:
        cold.queued("p")
        cold.queued("q")
        assert cold.take("p") is None  # the worker embeds it rather than wait for a model load
        model.hold.set()
        _settle(cold)
        assert isinstance(cold.take("q"), tuple)  # made all the same, for later
    finally:
        cold.close()


def test_a_failed_batch_leaves_the_texts_to_the_workers(batcher: QueryBatcher, model: Model) -> None:
    model.fail = True
    for text in ("m", "n", "o"):
        batcher.queued(text)
    _settle(batcher)
    assert batcher.failed == 1 and batcher.take("m") is None


def test_bad_batch_limits_are_refused(model: Model) -> None:
    with pytest.raises(ValueError, match="batch_at"):
        QueryBatcher(model.embed, lambda: "hash", batch_at=1)


def _scope(query: bytes, method: str = "GET", path: str = "/api/search") -> dict[str, object]:
    return {"type": "http", "method": method, "path": path, "query_string": query}


def _posted(body: bytes, path: str = "/api/search") -> dict[str, object]:
    return {"type": "http", "method": "POST", "path": path, "query_string": b"", BODY_KEY: body}


def test_the_text_of_a_posted_search_parked_at_admission() -> None:
    assert (
        queued_search_text(_posted(b'{"query": " budget approved ", "limit": 5}'), NOW_MS)
        == "budget approved"
    )
    last_week = b'{"query": "API migration blocked last week"}'
    assert queued_search_text(_posted(last_week), NOW_MS) == "API migration blocked"
    own_dates = b'{"query": "blocked last week", "since": "2026-01-01"}'
    assert queued_search_text(_posted(own_dates), NOW_MS) == "blocked last week"
    null_dates = b'{"query": "blocked last week", "since": null, "until": null}'
    assert queued_search_text(_posted(null_dates), NOW_MS) == "blocked"
    for refused in (b"not json", b"\xff\xfe", b"[1, 2]", b'{"query": 5}', b'{"query": "  "}', b"{}"):
        assert queued_search_text(_posted(refused), NOW_MS) is None, refused
    assert queued_search_text(_posted(b'{"query": "budget"}', path="/api/messages"), NOW_MS) is None


def test_the_text_of_a_search_parked_at_admission() -> None:
    assert queued_search_text(_scope(b"q=%20budget+approved%20&limit=5"), NOW_MS) == "budget approved"
    # A date phrase becomes a range: the search embeds the rest.
    assert queued_search_text(_scope(b"q=API+migration+blocked+last+week"), NOW_MS) == "API migration blocked"
    # Dates of its own: the phrase stays in the text.
    dated = queued_search_text(_scope(b"q=blocked+last+week&since=2026-01-01"), NOW_MS)
    assert dated == "blocked last week"
    assert queued_search_text(_scope(b"q=a&q=second"), NOW_MS) == "second"  # as Starlette reads it
    assert queued_search_text(_scope(b"q=budget", method="POST"), NOW_MS) is None  # no body read
    assert queued_search_text(_scope(b"q=budget", method="PUT"), NOW_MS) is None
    assert queued_search_text(_scope(b"q=budget", path="/api/messages"), NOW_MS) is None
    assert queued_search_text(_scope(b"q=++"), NOW_MS) is None
    assert queued_search_text(_scope(b"limit=3"), NOW_MS) is None


class Spy(HashingEmbedder):
    """The test embedder, noting the texts each search embeds first."""

    def __init__(self) -> None:
        super().__init__()
        self.first: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.first.append(texts[0])
        return super().embed_queries(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.first.append(text)
        return super().embed_query(text)


def test_the_batched_text_is_the_one_a_search_embeds_first(settings: Settings) -> None:
    spy = Spy()
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=spy)
    try:
        services.memory.ingest(make_message(n, content=f"budget review {n}") for n in range(5))
        for query, filters in (
            ("  budget approved  ", None),
            ("budget approved last week", None),
            ("budget review yesterday", None),
            ("budget approved last week", SearchFilters(since=NOW_MS - 86_400_000 * 30)),
        ):
            spy.first.clear()
            services.memory.search_outcome(query, filters, 5)
            dated = filters is not None
            assert spy.first[0] == first_text(query, dated=dated, now_ms=NOW_MS), query
    finally:
        services.close()


@pytest.mark.model
def test_the_model_gives_a_text_the_same_vector_in_any_batch() -> None:
    """Mixed lengths and batch sizes: the vector of a text in a batch is its own vector, bit for bit."""
    model = OnnxMiniLMEmbedder(threads=2, query_cache_size=0)
    worker = OnnxMiniLMEmbedder(threads=1, query_cache_size=0)
    texts = [
        "ok",
        "who reviewed the security audit please 17",
        "budget approved for Q3",
        "what did Caroline say about the pottery class she took last summer with her friends?",
        "deploy",
        "customer call follow up team 4",
        "这是一个中文句子。",
        "hiring plan waiting on legal " * 6,
    ]
    alone = {t: worker.embed_query(t) for t in texts}
    for size in (3, 8):
        for start in range(0, len(texts), size):
            group = texts[start : start + size]
            for text, vector in zip(group, model.embed_queries(group), strict=True):
                np.testing.assert_array_equal(vector, alone[text])


@pytest.mark.model
def test_remembered_vectors_answer_the_search_without_the_model() -> None:
    worker = OnnxMiniLMEmbedder(threads=1)
    marked = np.full(384, 0.5, dtype=np.float32)  # not what the model would make: seen only if cached
    worker.remember_queries({"login bug status 3": marked})
    np.testing.assert_array_equal(worker.embed_queries(["login bug status 3"])[0], marked)
    np.testing.assert_array_equal(worker.embed_query("login bug status 3"), marked)
    assert not worker.loaded  # no model was needed


class OneAtATime:
    """An embedder without `embed_queries`, as the int8 query model: scaled per call."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.model_id, self.dimensions = self.inner.model_id, self.inner.dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def test_no_batches_for_a_model_whose_vectors_depend_on_the_batch(settings: Settings) -> None:
    for embedder, batches in ((OneAtATime(), False), (HashingEmbedder(), True)):
        services = build_services(settings, clock=FixedClock(NOW_MS), embedder=embedder)  # type: ignore[arg-type]
        try:
            made = query_batcher(services)
            assert (made is not None) == batches
            if made is not None:
                made.close()
        finally:
            services.close()
