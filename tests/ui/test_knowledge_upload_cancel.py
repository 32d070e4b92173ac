"""Knowledge Base screen: an upload shows its progress in words and a Cancel button that stops it
off the GUI thread, storing nothing and skipping the files still waiting (real Qt, real services)."""

from __future__ import annotations

import threading

import pytest

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.ui.screens.knowledge_base import upload_progress
from tests.ui.helpers import open_window

LOREM = "The quarterly budget review moved to Thursday; bring the vendor quotes and the hiring plan. "


class GatedEmbedder(HashingEmbedder):
    """The hashing embedder, holding every batch after the first until the test opens the gate:
    the upload is then reliably in the middle of embedding when Cancel is pressed."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.batches = 0
        self.waiting = threading.Event()

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        self.batches += 1
        if self.batches > 1:
            self.waiting.set()
            assert self.gate.wait(20), "the test never released the embedder"
        return super().embed_documents(texts)


@pytest.fixture
def gated(settings, clock):
    embedder = GatedEmbedder()
    services = build_services(settings, clock=clock, embedder=embedder)
    yield services, embedder
    embedder.gate.set()
    services.close()


def test_cancel_stops_the_running_upload_and_skips_the_waiting_ones(qtbot, gated, tmp_path):
    services, embedder = gated
    screen = open_window(qtbot, services).show_screen("knowledge_base")
    assert not screen.cancel_button.isVisible()  # nothing to cancel yet
    big = tmp_path / "big.txt"
    big.write_text("\n\n".join(f"Section {i}. " + LOREM * 10 for i in range(60)), encoding="utf-8")
    small = tmp_path / "small.txt"
    small.write_text("The office plant needs water on Mondays.\n", encoding="utf-8")
    screen.add_paths([big, small])

    qtbot.waitUntil(lambda: embedder.waiting.is_set(), timeout=20000)
    assert screen.cancel_button.isVisible() and screen.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: "embedding" in screen.uploads.rows[0].message, timeout=5000)
    first = screen.uploads.rows[0]
    assert first.state == "working" and 15 <= first.percent < 97
    assert "of" in first.message and "chunks" in first.message  # "embedding 8 of 72 chunks"

    screen.cancel_button.click()
    assert not screen.cancel_button.isEnabled()  # pressed once; the worker stops at its next check
    embedder.gate.set()
    qtbot.waitUntil(lambda: not screen.uploads_pending(), timeout=20000)
    states = {r.path.name: (r.state, r.message) for r in screen.uploads.rows}
    assert states == {
        "big.txt": ("cancelled", "stopped; nothing was stored"),
        "small.txt": ("cancelled", "skipped"),
    }
    assert services.knowledge.count() == 0
    assert services.knowledge.kb.collection.count() == 0  # the vectors already written were undone
    assert not screen.cancel_button.isVisible()

    # The same screen adds the file afterwards: a cancel leaves nothing half-stored in the way.
    screen.add_paths([small])
    qtbot.waitUntil(lambda: services.knowledge.count() == 1, timeout=20000)


def test_progress_words_cover_every_stage():
    assert upload_progress("parse", 0, 0) == (0, "reading…")
    assert upload_progress("parse", 50, 200) == (3, "reading 25%")
    assert upload_progress("embed", 40, 80) == (56, "embedding 40 of 80 chunks")
    assert upload_progress("store", 0, 1) == (97, "saving…")
    assert upload_progress("store", 1, 1)[0] == 100
