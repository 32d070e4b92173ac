"""The status bar says how far the background keyword reindex has come, read off the GUI thread,
beside the embedding backlog, and says nothing once the reindex is done."""

from __future__ import annotations

from app.ui.backlog_status import backlog_text, reindex_text
from tests.api.test_reindex_progress import _half_done
from tests.conftest import make_message
from tests.ui.helpers import open_window


def test_label_shows_the_reindex_progress_and_goes_once_done(qtbot, services):
    assert services.memory.ingest([make_message(i) for i in range(24)]).imported == 24
    _half_done(services)
    window = open_window(qtbot, services)
    label = window.backlog_label
    qtbot.waitUntil(lambda: label.isVisible(), timeout=10000)
    assert label.text() == "Updating keyword index: 10 of 24 messages"

    assert services.index.reindex_keywords() == 14
    window.ctx.notices.poll_now()
    qtbot.waitUntil(lambda: not label.isVisible(), timeout=10000)
    assert window.ctx.guard.violations == []  # read by the worker, never the GUI thread


def test_reindex_text_joins_the_embedding_line():
    pending = {"format": 0, "target": 2, "pending": True, "done": 12000, "total": 100000}
    assert reindex_text(pending) == "Updating keyword index: 12,000 of 100,000 messages"
    assert reindex_text({**pending, "pending": False}) == "" and reindex_text(None) == ""
    both = backlog_text({"pending": 30, "eta_seconds": 3.0, "keyword_reindex": pending})
    embedding = "Embedding 30 messages · about 1 min left"
    assert both == f"{embedding}  ·  Updating keyword index: 12,000 of 100,000 messages"
    assert backlog_text({"pending": 0, "keyword_reindex": {**pending, "pending": False}}) == ""
