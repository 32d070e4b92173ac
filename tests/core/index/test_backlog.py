"""The embedding backlog: stored rows are keyword-searchable at once; the drain embeds them all, once."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy import text

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import Settings
from tests.conftest import make_message


class ModelFailed(RuntimeError):
    pass


class CountingEmbedder(HashingEmbedder):
    """Counts the texts it embeds, optionally slowly (a real model takes ~10 ms a message)."""

    def __init__(self, delay_s: float = 0.0) -> None:
        super().__init__()
        self.texts = 0
        self.delay_s = delay_s
        self.gate = threading.Event()
        self.gate.set()
        self.broken = False
        self.pause_after: int | None = None  # wait at the gate once this many texts are embedded

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.pause_after is None or self.texts >= self.pause_after:
            self.gate.wait()
        if self.broken:
            raise ModelFailed("model failed to run")
        self.texts += len(texts)
        time.sleep(self.delay_s * len(texts))
        return super().embed_documents(texts)


@pytest.fixture
def counting() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def svc(settings: Settings, clock: FixedClock, counting: CountingEmbedder) -> Services:
    services = build_services(settings, clock=clock, embedder=counting)
    yield services  # type: ignore[misc]
    services.close()


def test_deferred_ingest_is_keyword_searchable_before_any_vector(
    svc: Services, counting: CountingEmbedder
) -> None:
    counting.gate.clear()  # the model is busy: nothing gets embedded yet
    result = svc.memory.ingest(
        [make_message(i, content=f"zanzibar ferry schedule {i}") for i in range(600)], defer_embedding=True
    )
    assert result.imported == 600
    assert svc.processor.backlog.pending() == 600
    hits = svc.memory.search("zanzibar ferry schedule 17", limit=5, loose=True)
    assert hits and hits[0].content == "zanzibar ferry schedule 17"
    counting.gate.set()
    status = svc.processor.backlog.wait(timeout_s=60)
    assert status.pending == 0 and status.error is None
    assert svc.processor.collection.count() == 600
    assert counting.texts == 600  # every row embedded exactly once (no repair beside the drain)


def test_drain_covers_rows_edited_below_the_cursor_and_reports_progress(svc: Services) -> None:
    svc.memory.ingest([make_message(i) for i in range(300)], defer_embedding=True)
    svc.processor.backlog.wait(timeout_s=60)
    # An edit resets the row's stamp: it is backlog again, however old the row.
    svc.memory.ingest([make_message(3, content="the edited text")], defer_embedding=True)
    seen: list[int] = []
    status = svc.processor.backlog.wait(lambda s: seen.append(s.pending), timeout_s=60)
    assert status.pending == 0 and seen[-1] == 0
    assert svc.processor.collection.count() == 300
    assert svc.index.verify()[0].healthy


def test_the_backlog_count_uses_the_partial_index(svc: Services) -> None:
    with svc.db.read_engine.connect() as conn:
        plan = conn.execute(
            text("EXPLAIN QUERY PLAN SELECT count(*) FROM raw_messages WHERE embedding_content_hash IS NULL")
        ).fetchall()
    assert "ix_raw_messages_unembedded" in " ".join(str(row) for row in plan)


def test_only_one_process_drains_and_a_stopped_drain_keeps_its_work(
    settings: Settings, clock: FixedClock
) -> None:
    slow = CountingEmbedder(delay_s=0.001)
    first = build_services(settings, clock=clock, embedder=slow)
    second = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        first.memory.ingest([make_message(i) for i in range(1200)], defer_embedding=True)
        first.processor.backlog.close()  # this test drives the drain itself, not the worker
        before = first.processor.backlog.pending()
        slow.gate.clear()
        slow.pause_after = slow.texts + 256  # the model stalls after the drain's first batch
        stop = threading.Event()
        reports = []
        drainer = threading.Thread(target=lambda: reports.append(first.processor.backlog.drain(stop=stop)))
        drainer.start()
        deadline = time.time() + 30
        while not ((now := first.processor.backlog.status()).running and now.embedded):
            assert time.time() < deadline
            time.sleep(0.01)
        # Another process finds the claim taken (and repair finds the writer lease): both wait.
        busy = second.processor.backlog.drain()
        assert busy.busy_with is not None and busy.embedded == 0
        assert second.index.repair()[0].deferred_for
        stop.set()
        slow.gate.set()
        drainer.join(30)
        assert reports[0].stopped and 0 < reports[0].embedded < before
        left = first.processor.backlog.pending()
        assert left == before - reports[0].embedded  # what was embedded is stamped, the rest is not
        # The claim was released: the other process finishes the backlog.
        report = second.processor.backlog.drain()
        assert report.busy_with is None and report.embedded == left
        assert second.processor.collection.count() == 1200
    finally:
        first.close()
        second.close()


def test_a_model_failure_is_reported_and_loses_nothing(svc: Services, counting: CountingEmbedder) -> None:
    counting.broken = True
    svc.memory.ingest([make_message(i) for i in range(50)], defer_embedding=True)
    status = svc.processor.backlog.wait(timeout_s=30)
    assert status.error == "model failed to run" and status.pending == 50
    with pytest.raises(ModelFailed):
        svc.processor.backlog.drain()
    assert svc.processor.backlog.pending() == 50
    counting.broken = False
    assert svc.processor.backlog.drain().embedded == 50
