"""Memory screen on the real forgetting service: counts, preview, run now, undo, and runs made
by another service instance (another process) showing up with a notice."""

from __future__ import annotations

import re

import pytest

from app.bootstrap import build_services
from app.core.clock import DAY_MS
from app.core.embeddings.hashing import HashingEmbedder
from tests.conftest import NOW_MS, make_message
from tests.ui.helpers import open_window, settle

pytest.importorskip("app.services.forgetting_service", reason="forgetting not merged yet")


def chatter(count: int, *, days_ago: int = 40, prefix: str = "old") -> list:
    # Old, unremarkable chatter in one channel: the forgetting engine will group and archive it.
    return [
        make_message(i, message_id=f"{prefix}-{i}", channel="random", person="bob",
                     content=f"ok sounds good {i}", timestamp=NOW_MS - days_ago * DAY_MS + i * 60_000)
        for i in range(count)
    ]  # fmt: skip


@pytest.fixture
def window(qtbot, services):
    services.memory.ingest(chatter(12))
    return open_window(qtbot, services)


@pytest.fixture
def screen(window):
    return window.show_screen("memory")


def totals_numbers(screen) -> tuple[int, int, int]:
    text = screen.totals.text().replace(",", "")
    total = int(re.search(r"<b>(\d+)</b> messages stored", text).group(1))
    kept = int(re.search(r"<b>(\d+)</b> kept in full", text).group(1))
    archived = int(re.search(r"<b>(\d+)</b> archived", text).group(1))
    return total, kept, archived


def test_preview_run_and_undo(qtbot, screen, services):
    qtbot.waitUntil(lambda: "12</b> messages stored" in screen.totals.text(), timeout=10000)
    qtbot.waitUntil(lambda: "every" in screen.status.text(), timeout=10000)
    screen.preview()
    qtbot.waitUntil(lambda: "Next run would" in screen.plan_view.toPlainText(), timeout=10000)
    screen.run_now()
    qtbot.waitUntil(lambda: screen.runs.rowCount() >= 1, timeout=15000)
    qtbot.waitUntil(lambda: screen.banner.text().startswith("Forgetting run finished"), timeout=15000)
    run = screen.runs.row_at(0)
    assert sum(t.archived for t in run.tiers) == 12
    # The preview follows the data: what was just archived is no longer planned.
    qtbot.waitUntil(lambda: "Nothing to forget" in screen.plan_view.toPlainText(), timeout=10000)
    qtbot.waitUntil(lambda: totals_numbers(screen) == (12, 0, 12), timeout=10000)
    qtbot.waitUntil(lambda: sum(screen.chart.series["archived"]) == 12, timeout=10000)  # shown as such
    assert sum(screen.chart.series["short term"]) == 0
    assert screen.runs.index(0, 0).data() == "just now"  # human time, exact one on hover
    assert "2026" in screen.runs.index(0, 0).data(3)  # Qt.ToolTipRole
    assert "T" not in screen.status.text().split("last run")[-1]  # no raw ISO timestamps
    screen.runs_view.selectRow(0)
    screen.undo_selected()
    qtbot.waitUntil(lambda: screen.banner.text().startswith("Run undone"), timeout=15000)
    assert "12 messages back in full" in screen.banner.text()
    qtbot.waitUntil(lambda: totals_numbers(screen) == (12, 12, 0), timeout=10000)
    qtbot.waitUntil(lambda: "undone just now" in screen.runs.index(0, 2).data(), timeout=10000)
    assert screen.ctx.guard.violations == []


def test_archiving_many_asks_first_with_the_count(qtbot, screen, services):
    services.memory.ingest(chatter(150, days_ago=50, prefix="many"))
    asked: list[str] = []
    screen.confirm = lambda _title, text: asked.append(text) or False
    screen.run_now()
    qtbot.waitUntil(lambda: bool(asked) and screen.run_button.isEnabled(), timeout=15000)
    count = int(re.search(r"archives (\d+) messages", asked[0]).group(1))
    assert count > 100 and f"Archive {count} messages now?" in asked[0]
    settle(qtbot, 100)
    assert services.memory.stats()["archived"] == 0  # said no: nothing happened
    screen.confirm = lambda *_: True
    screen.run_now()
    qtbot.waitUntil(lambda: services.memory.stats()["archived"] == count, timeout=15000)
    assert screen.ctx.guard.violations == []


def test_totals_add_up_and_chart_covers_imported_history(qtbot, services, window):
    two_years = [
        make_message(900 + i, message_id=f"hist-{i}", content=f"old history {i}",
                     timestamp=NOW_MS - (730 - i * 30) * DAY_MS)
        for i in range(20)
    ]  # fmt: skip
    services.memory.ingest(two_years)
    screen = window.show_screen("memory")
    qtbot.waitUntil(lambda: "32</b> messages stored" in screen.totals.text(), timeout=10000)
    total, kept, archived = totals_numbers(screen)
    assert total == kept + archived == 32
    qtbot.waitUntil(lambda: bool(getattr(screen.chart, "starts", None)), timeout=10000)
    oldest = min(m.timestamp for m in two_years)
    assert screen.chart.starts[0] <= oldest < screen.chart.starts[1]
    assert sum(sum(v) for v in screen.chart.series.values()) == 32  # every message is on the chart
    assert len(screen.chart.starts) <= 40


def test_run_by_another_process_refreshes_and_offers_undo(qtbot, window, settings, clock):
    screen = window.show_screen("memory")
    qtbot.waitUntil(lambda: "12</b> messages stored" in screen.totals.text(), timeout=10000)
    qtbot.waitUntil(lambda: "never run" in screen.status.text(), timeout=10000)
    assert screen.runs.rowCount() == 0
    watcher = screen.ctx.notices
    qtbot.waitUntil(lambda: watcher.marker is not None, timeout=10000)  # the first poll is the baseline

    # Another service instance on the same data dir (as another process would be): its events
    # never reach this window's bus, only the store changes.
    other = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        report = other.forgetting.run(trigger="schedule")
    finally:
        other.close()
    assert sum(t.archived for t in report.tiers) == 12

    watcher.poll_now()
    qtbot.waitUntil(lambda: screen.runs.rowCount() == 1, timeout=10000)
    qtbot.waitUntil(lambda: totals_numbers(screen) == (12, 0, 12), timeout=10000)
    assert "last run just now (finished)" in screen.status.text()
    bar = window.notice_bar
    qtbot.waitUntil(lambda: bar.isVisible(), timeout=5000)
    assert "Scheduled forgetting archived 12 messages" in bar.text.text()
    assert bar.undo_button.isVisible()
    bar.undo_button.click()
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: totals_numbers(screen) == (12, 12, 0), timeout=10000)
    assert screen.ctx.guard.violations == []
