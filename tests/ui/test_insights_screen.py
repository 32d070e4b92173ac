"""Insights screen on the real insights service: ranked list, favorite re-orders, detail, evidence."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.ui.helpers import open_window, seed, settle

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
    record = screen.evidence.item(0).data(256)  # Qt.UserRole
    assert record is not None
    # Leave Search in a used state: a query, a filter chip and a banner from an earlier search.
    search = screen.ctx.navigate("search")
    search.query_edit.setText("something else entirely")
    search.add_chip("platform", "discord")
    search.banner.show_message("Unexpected error. ValueError: old", "error")
    screen.ctx.navigate("insights")
    screen._open_evidence(screen.evidence.item(0))
    qtbot.waitUntil(lambda: search.detail.record is not None, timeout=5000)
    settle(qtbot, 400)  # a search still running from before must not replace it
    assert search.detail.record.id == record.id
    assert search.query_edit.text() == "" and search.chip_bar.chips() == []
    assert search.banner.isHidden() and search.model.rowCount() == 1
    assert screen.ctx.guard.violations == []


def test_clicking_a_row_does_not_move_it_until_rerank(qtbot, screen, services):
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 3, timeout=10000)
    order = [r.id for r in screen.model.rows]
    row = len(order) - 1
    clicked = order[row]
    before = screen.model.rows[row].score
    screen.table.selectRow(row)  # a view: the score rises and the service publishes a change
    qtbot.waitUntil(lambda: screen.model.rows[row].score != before, timeout=10000)
    settle(qtbot, 400)
    assert [r.id for r in screen.model.rows] == order  # refreshed in place, nothing moved
    assert screen.model.row_at(screen.table.currentIndex().row()).id == clicked
    ranked = [r.id for r in services.insights.list_insights(limit=200)]
    assert ranked.index(clicked) < row  # the view really re-ranked it: without the fix it would jump
    screen.rerank_button.click()  # asking for the new order shows it, selection follows the item
    qtbot.waitUntil(lambda: [r.id for r in screen.model.rows] == ranked, timeout=10000)
    assert screen.model.row_at(screen.table.currentIndex().row()).id == clicked
    assert services.insights.trend(clicked)["accessCount7d"] == 1


def test_state_is_explained_and_chart_has_a_time_axis(qtbot, screen, services):
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10000)
    state_col = next(i for i, c in enumerate(screen.model.columns) if c.title == "State")
    assert screen.model.index(0, state_col).data() in {"Dormant", "Active"}
    tip = screen.model.headerData(state_col, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "Dormant: not opened for 30 days" in tip
    screen.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: bool(getattr(screen.chart, "series", None)), timeout=10000)
    total = sum(sum(v) for v in screen.chart.series.values())
    assert total == len(services.insights.list_insights(lifecycle_state="all", limit=500))
    assert screen.chart.starts == sorted(screen.chart.starts)  # left is older
    assert screen.chart.x_axis.min() <= screen.chart.x_axis.max()
    assert screen.ctx.guard.violations == []


def test_names_can_be_changed_in_the_app(qtbot, screen, services):
    services.insights.set_me(["anna"])
    screen.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: "For: anna" in screen.brief.toPlainText(), timeout=10000)
    screen.names_button.click()
    qtbot.waitUntil(lambda: screen.who.isVisible() and screen.who.names.text() == "anna", timeout=5000)
    screen.who.names.setText(" , ")
    screen.who.save.click()  # nothing usable typed: said in place, nothing saved
    assert screen.who.problem.isVisible() and services.insights.me() == ("anna",)
    screen.who.names.setText("ben")
    screen.who.save.click()
    qtbot.waitUntil(lambda: "For: ben" in screen.brief.toPlainText(), timeout=10000)
    assert services.insights.me() == ("ben",)


def test_opening_an_insight_refreshes_the_list_and_keeps_the_selection(qtbot, screen, services):
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10000)
    row = screen.model.rowCount() - 1
    opened = screen.model.rows[row]
    assert services.insights.trend(opened.id)["accessCount7d"] == 0

    screen.table.selectRow(row)  # opening counts a view; the service publishes it

    def refreshed() -> bool:
        rows = {r.id: r for r in screen.model.rows}
        return opened.id in rows and rows[opened.id].score != opened.score

    qtbot.waitUntil(refreshed, timeout=10000)
    settle(qtbot, 400)  # let any further reloads run: none may count another view
    current = screen.model.row_at(screen.table.currentIndex().row())
    assert current is not None and current.id == opened.id  # still selected after the refresh
    assert screen.table.selectionModel().isRowSelected(screen.table.currentIndex().row())
    assert services.insights.trend(opened.id)["accessCount7d"] == 1  # exactly one view, no loop
    fresh = services.insights.get(opened.id, count_view=False)
    assert f"score {fresh.score:.2f}" in screen.detail.toPlainText()
    assert screen.evidence.count() > 0
    assert screen.ctx.guard.violations == []


def test_done_button_closes_the_loop_and_who_are_you_feeds_the_brief(qtbot, screen, services):
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10000)
    assert not screen.lifecycle_bar.buttons["done"].isEnabled()  # nothing open yet
    first = screen.model.rows[0]
    screen.table.selectRow(0)
    qtbot.waitUntil(lambda: screen.lifecycle_bar.buttons["done"].isEnabled(), timeout=10000)
    assert not screen.lifecycle_bar.buttons["open"].isEnabled()
    screen.lifecycle_bar.buttons["done"].click()
    qtbot.waitUntil(lambda: first.id not in {r.id for r in screen.model.rows}, timeout=10000)
    assert services.insights.get(first.id, count_view=False).insight.lifecycle == "done"
    screen.lifecycle_filter.setCurrentIndex(screen.lifecycle_filter.findData("done"))
    qtbot.waitUntil(lambda: [r.id for r in screen.model.rows] == [first.id], timeout=10000)

    screen.tabs.setCurrentIndex(2)  # open loops: no names known yet, so the first-run question shows
    qtbot.waitUntil(lambda: screen.who.isVisible(), timeout=10000)
    screen.who.names.setText("ben, Ben B.")
    screen.who.save.click()
    qtbot.waitUntil(
        lambda: not screen.who.isVisible() and "For: ben" in screen.brief.toPlainText(), timeout=10000
    )
    assert services.insights.me() == ("ben", "Ben B.")
    assert "fix the login bug" in screen.brief.toPlainText()
    assert screen.ctx.guard.violations == []
