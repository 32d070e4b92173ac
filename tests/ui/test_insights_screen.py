"""Insights screen on the real insights service: ranked list, favorite re-orders, detail, evidence."""

from __future__ import annotations

import pytest

from tests.ui.helpers import open_window, seed

pytest.importorskip("app.services.insights_service", reason="insights not merged yet")

DISCUSSION = [
    ("slack", "eng", "anna", "We decided to ship the release on Monday"),
    ("slack", "eng", "ben", "Ben will fix the login bug by Friday"),
    ("slack", "eng", "carl", "Blocked: the staging database is down"),
    ("slack", "eng", "dana", "Can someone review the onboarding doc?"),
    ("slack", "eng", "anna", "Action item: Anna to send the budget report by Thursday"),
]


@pytest.fixture
def screen(qtbot, services):
    seed(services, DISCUSSION)
    services.insights.generate()
    window = open_window(qtbot, services)
    return window.show_screen("insights")


def test_list_favorite_reorders_and_detail_shows_evidence(qtbot, screen, services):
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10000)
    ids = [r.id for r in screen.model.rows]
    last = ids[-1]
    screen.toggle_favorite(len(ids) - 1)
    qtbot.waitUntil(lambda: [r.id for r in screen.model.rows] != ids, timeout=10000)
    new_ids = [r.id for r in screen.model.rows]
    assert new_ids.index(last) < ids.index(last)  # favorite → moves up
    assert screen.model.rows[new_ids.index(last)].insight.weights.favorite
    assert screen.model.index(new_ids.index(last), 0).data() == "★"

    screen.table.selectRow(0)
    qtbot.waitUntil(lambda: screen.evidence.count() > 0 and bool(screen.detail.toPlainText()), timeout=10000)
    assert screen.chart.view is not None  # the trend chart drew
    record = screen.evidence.item(0).data(256)  # Qt.UserRole
    if record is not None:
        screen._open_evidence(screen.evidence.item(0))
        search = screen.ctx.navigate("search")
        qtbot.waitUntil(lambda: search.detail.record is not None, timeout=5000)
        assert search.detail.record.id == record.id
    assert screen.ctx.guard.violations == []
