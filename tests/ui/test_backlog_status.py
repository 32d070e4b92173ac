"""The window's status bar says how many messages still wait for their vectors, read off the GUI
thread, and says nothing once the backlog is drained."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.ui.backlog_status import backlog_text
from tests.conftest import make_message
from tests.ui.helpers import open_window


class GatedEmbedder(HashingEmbedder):
    """Embeds only once the gate opens: the backlog stays pending while the test looks."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.gate.wait(30)
        return super().embed_documents(texts)


@pytest.fixture
def gated():
    return GatedEmbedder()


@pytest.fixture
def services(settings, clock, gated):
    svc = build_services(settings, clock=clock, embedder=gated)
    yield svc
    gated.gate.set()  # a drain still waiting must not hold the close up
    svc.close()


def test_label_shows_the_backlog_and_goes_once_drained(qtbot, services, gated):
    result = services.memory.ingest([make_message(i) for i in range(40)], defer_embedding=True)
    assert result.imported == 40
    window = open_window(qtbot, services)
    label = window.backlog_label
    qtbot.waitUntil(lambda: label.isVisible(), timeout=10000)
    assert label.text().startswith("Embedding 40 messages")

    gated.gate.set()
    assert services.processor.backlog.wait(timeout_s=60).pending == 0
    window.ctx.notices.poll_now()
    qtbot.waitUntil(lambda: not label.isVisible(), timeout=10000)
    assert label.text() == ""
    assert window.ctx.guard.violations == []  # the backlog was read by the worker, never the GUI


def test_backlog_text_estimates_minutes_and_says_why_a_drain_stopped():
    assert backlog_text(None) == ""
    assert backlog_text({"pending": 0, "eta_seconds": 0.0}) == ""
    assert backlog_text({"pending": 1, "eta_seconds": None}) == "Embedding 1 message"
    assert (
        backlog_text({"pending": 12000, "eta_seconds": 250.0})
        == "Embedding 12,000 messages · about 5 min left"
    )
    assert backlog_text({"pending": 30, "eta_seconds": 3.0}) == "Embedding 30 messages · about 1 min left"
    failed = backlog_text({"pending": 30, "eta_seconds": None, "error": "model failed to run"})
    assert failed == "Embedding 30 messages · paused: model failed to run"
