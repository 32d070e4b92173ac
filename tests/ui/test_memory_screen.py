"""Memory screen on the real forgetting service: counts, preview, run now, undo."""

from __future__ import annotations

import pytest

from app.core.clock import DAY_MS
from tests.conftest import NOW_MS, make_message
from tests.ui.helpers import open_window

pytest.importorskip("app.services.forgetting_service", reason="forgetting not merged yet")


@pytest.fixture
def screen(qtbot, services):
    # Old, unremarkable chatter in one channel: the forgetting engine will group and archive it.
    old = [
        make_message(i, message_id=f"old-{i}", channel="random", person="bob",
                     content=f"ok sounds good {i}", timestamp=NOW_MS - 40 * DAY_MS + i * 60_000)
        for i in range(12)
    ]  # fmt: skip
    services.memory.ingest(old)
    window = open_window(qtbot, services)
    return window.show_screen("memory")


def test_preview_run_and_undo(qtbot, screen, services):
    qtbot.waitUntil(lambda: "12 messages" in screen.totals.text(), timeout=10000)
    qtbot.waitUntil(lambda: "every" in screen.status.text(), timeout=10000)
    screen.preview()
    qtbot.waitUntil(lambda: "Planning" not in screen.plan_view.toPlainText(), timeout=10000)
    planned = screen.plan_view.toPlainText()
    assert "Next run would" in planned or "Nothing to forget" in planned
    screen.run_now()
    qtbot.waitUntil(lambda: screen.runs.rowCount() >= 1, timeout=15000)
    assert screen.banner.text().startswith("Forgetting run")
    run = screen.runs.row_at(0)
    screen.runs_view.selectRow(0)
    screen.undo_selected()
    qtbot.waitUntil(lambda: screen.banner.text().startswith("Undo"), timeout=15000)
    if run.status == "ok" and (sum(t.archived for t in run.tiers) or sum(t.promoted for t in run.tiers)):
        assert "Undo undone" in screen.banner.text()
    assert screen.ctx.guard.violations == []
