"""The quick-search popup: live results off the GUI thread, ↑/↓ + Enter opens the hit, Esc hides."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.ui.quick_popup import hit_text
from tests.ui.helpers import open_window, seed, settle


def test_typing_shows_live_results_and_enter_opens_the_hit_in_the_window(qtbot, services):
    seed(services)
    window = open_window(qtbot, services)
    window.show_screen("memory")
    popup = window.quick
    window.quick_search()
    qtbot.waitExposed(popup)
    flags = popup.windowFlags()
    assert flags & Qt.WindowType.WindowStaysOnTopHint and flags & Qt.WindowType.FramelessWindowHint
    assert popup.edit.hasFocus() or popup.focusWidget() is popup.edit
    qtbot.keyClicks(popup.edit, "budget")
    qtbot.waitUntil(lambda: popup.results.count() > 0, timeout=5000)
    settle(qtbot)
    assert popup.results.count() >= 2
    assert all("budget" in h.content.lower() for h in popup.hits[:2])
    assert popup.results.currentRow() == 0
    qtbot.keyClick(popup.edit, Qt.Key.Key_Down)
    assert popup.results.currentRow() == 1
    chosen = popup.hits[1]
    qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
    assert not popup.isVisible()
    assert window.current_key() == "search"
    search = window.screens["search"]
    assert search.query_edit.text() == "budget"
    assert search.detail.hit is not None and search.detail.hit.id == chosen.id
    settle(qtbot)
    assert window.ctx.guard.violations == []


def test_escape_hides_and_stale_answers_are_dropped(qtbot, services):
    seed(services)
    window = open_window(qtbot, services)
    popup = window.quick
    popup.popup("budget")
    qtbot.waitUntil(lambda: popup.results.count() > 0, timeout=5000)
    popup.edit.setText("charger")
    popup.run_search()
    popup.edit.setText("deploy pipeline")
    popup.run_search()  # the "charger" answer arrives after this one was asked: it must not show
    settle(qtbot)
    assert "deploy" in popup.hits[0].content.lower()
    qtbot.keyClick(popup.edit, Qt.Key.Key_Escape)
    assert not popup.isVisible()


def test_popup_before_the_services_waits_then_searches(qtbot, services):
    from app.ui.app import attach, build_window

    seed(services)
    window = build_window(None)
    qtbot.addWidget(window)
    window.quick_search("budget")
    assert "Opening" in window.quick.status.text()
    attach(window, services)
    qtbot.waitUntil(lambda: window.quick.results.count() > 0, timeout=5000)


def test_hit_text_shows_who_where_when_and_a_short_snippet():
    from tests.conftest import NOW_MS

    class Hit:
        kind, platform, channel, person, timestamp, extra = "message", "slack", "general", "anna", NOW_MS, {}
        content = "word " * 80

    first, second = hit_text(Hit(), NOW_MS + 3 * 86_400_000).split("\n")
    assert len(first) <= 141 and first.endswith("…")
    assert second == "anna · #general · Slack · 3 days ago"


def test_hit_text_names_insights_summaries_and_the_insight_a_message_carries():
    from app.core.domain import SearchHit

    def hit(kind: str, **extra: object) -> SearchHit:
        return SearchHit(
            id="1",
            kind=kind,
            content="ship on friday",
            score=0.5,
            platform="slack",
            channel="general",
            person="anna",
            timestamp=None,
            tier=None,
            extra=dict(extra),
        )

    assert hit_text(hit("insight"), 0).startswith("Insight: ship on friday")
    assert hit_text(hit("summary"), 0).startswith("Summary: ship on friday")
    carried = hit("message", insight={"insight_kind": "action_item"})
    assert hit_text(carried, 0).startswith("Action item: ship")
    assert hit_text(hit("message"), 0).startswith("ship on friday")


def test_hit_text_shows_documents_without_their_markdown_syntax():
    from app.core.domain import SearchHit

    chunk = SearchHit(
        id="c",
        kind="chunk",
        content="## Date\nThe launch is **Tuesday**.",
        score=0.5,
        platform=None,
        channel=None,
        person=None,
        timestamp=None,
        tier=None,
        extra={"file_name": "plan.md"},
    )
    first, second = hit_text(chunk, 0).split("\n")
    assert "##" not in first and "**" not in first and "Tuesday" in first
    assert second == "plan.md"


HARBOR = [
    (
        "slack",
        "ops",
        "anna",
        f"Harbor crane {n}: the night shift moved the containers to berth {n} because the tide "
        "schedule changed again and the pilots asked for more room.",
    )
    for n in range(1, 8)
] + [("slack", "ops", "ben", "Harbor fees are due on Friday.")]


def _whole_or_screen_full(popup) -> bool:
    """Every result shows whole, or the popup already takes all the room the screen has."""
    viewport = popup.results.viewport().height()
    last = popup.results.visualItemRect(popup.results.item(popup.results.count() - 1))
    area = popup.screen().availableGeometry()
    return last.bottom() < viewport or popup.height() >= area.height() - 80


def test_the_popup_grows_to_show_every_result_whole_then_shrinks_back(qtbot, services):
    from app.ui.quick_popup import HEIGHT

    seed(services, HARBOR)
    window = open_window(qtbot, services)
    popup = window.quick
    popup.popup("harbor crane night shift containers")
    qtbot.waitUntil(lambda: popup.results.count() >= 7, timeout=5000)
    settle(qtbot)
    assert popup.height() > HEIGHT  # seven three-line results do not fit the resting height
    assert _whole_or_screen_full(popup)
    area = popup.screen().availableGeometry()
    assert area.contains(popup.geometry())
    popup.edit.setText("fees due friday")
    popup.run_search()
    qtbot.waitUntil(
        lambda: popup.results.count() >= 1 and "fees" in popup.hits[0].content.lower(), timeout=5000
    )
    settle(qtbot)
    assert popup.results.count() <= 3  # they fit the resting height: the popup returns to it
    assert popup.height() == HEIGHT
