"""Issue 15 "Search" and "Custom date range" reproductions, on real services and real widgets."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtWidgets import QApplication

from app.ui.links import message_link
from app.ui.search_state import SearchState
from tests.conftest import make_message
from tests.ui.helpers import CONVERSATION, open_window, seed, settle


@pytest.fixture
def window(qtbot, services):
    seed(services)
    win = open_window(qtbot, services)
    win.show_screen("search")
    return win


def _search(qtbot, screen, text):
    screen.focus_query(text)
    screen.run_search()
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0 and screen.count_label.text() != "", timeout=5000)


def _when_dialog_opens(attr, owner, act):
    """Run `act(dialog)` once `owner`'s modal dialog `attr` is up (exec() blocks the test)."""

    def poll():
        dialog = getattr(owner, attr, None)
        if dialog is not None and dialog.isVisible():
            act(dialog)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)


def test_result_count_and_sort_by_date(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    count = screen.model.rowCount()
    assert screen.count_label.text().startswith(f"{count} result")
    relevance = [h.id for h in screen.model.rows]
    screen.sort_combo.setCurrentIndex(screen.sort_combo.findData("newest"))
    times = [h.timestamp for h in screen.model.rows]
    assert times == sorted(times, reverse=True) and len(times) == count
    screen.sort_combo.setCurrentIndex(screen.sort_combo.findData("oldest"))
    assert [h.timestamp for h in screen.model.rows] == sorted(times)
    screen.sort_combo.setCurrentIndex(screen.sort_combo.findData("relevance"))
    assert [h.id for h in screen.model.rows] == relevance


def test_no_close_match_offers_show_nearest(qtbot, window):
    screen = window.screens["search"]
    screen.focus_query("zebra quantum origami")
    screen.run_search()
    qtbot.waitUntil(lambda: screen.count_label.text() != "", timeout=5000)
    assert screen.model.rowCount() == 0
    # The engine found only weak matches: it says so and offers them.
    assert screen.count_label.text() == "No close match"
    assert "Show nearest" in screen.banner.text()
    screen.loose_button.click()
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    assert screen.count_label.text().endswith(("result", "results"))


def test_detail_clears_when_the_new_query_no_longer_contains_it(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "charger")
    screen.open_current()
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    opened = screen.detail.hit.id
    # Still listed: the pane keeps it, and its row stays selected.
    _search(qtbot, screen, "charger anyone seen")
    assert screen.detail.hit is not None and screen.detail.hit.id == opened
    assert screen.model.row_at(screen.table.currentIndex().row()).id == opened
    # Not listed any more: the pane empties instead of showing an item from another search.
    screen.focus_query("release notes version")
    screen.run_search()
    qtbot.waitUntil(lambda: screen.detail.hit is None, timeout=5000)
    assert all(h.id != opened for h in screen.model.rows)
    assert "Select a result" in screen.detail.view.toPlainText()


def test_keyboard_first_arrows_enter_escape(qtbot, window):
    screen = window.screens["search"]
    window.activateWindow()
    screen.query_edit.setFocus()
    qtbot.keyClicks(screen.query_edit, "budget")
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=5000)
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Down)
    assert screen.table.currentIndex().row() == 0
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Down)
    assert screen.table.currentIndex().row() == 1
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    assert screen.detail.record.id == int(screen.model.rows[1].id)
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Up)
    assert screen.table.currentIndex().row() == 0
    assert screen.query_edit.text() == "budget"  # arrows never edit the query
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    assert screen.detail.record.id == int(screen.model.rows[0].id)
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Escape)
    assert screen.query_edit.text() == ""
    qtbot.waitUntil(lambda: screen.model.rowCount() == 0, timeout=5000)


def test_person_and_conversation_pickers_list_what_is_stored(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")

    def pick_person(dialog):
        items = [dialog.combo.itemText(i) for i in range(dialog.combo.count())]
        assert set(items) == {who for _p, _c, who, _t in CONVERSATION}
        dialog.combo.setEditText("nobody-here")
        dialog.accept()  # unknown: stays open with an inline error
        assert dialog.isVisible() and "nobody-here" in dialog.error.text()
        dialog.combo.setEditText("Dana")  # case does not matter
        dialog.accept()

    _when_dialog_opens("picker", screen.filter_menu, pick_person)
    screen.filter_menu.pick("person")
    qtbot.waitUntil(lambda: ("person", "dana") in screen.state.chips, timeout=5000)
    qtbot.waitUntil(lambda: {h.person for h in screen.model.rows} == {"dana"}, timeout=5000)

    def pick_channel(dialog):
        items = [dialog.combo.itemText(i) for i in range(dialog.combo.count())]
        assert "#general · Slack" in items and "#dev · Discord" in items
        dialog.combo.setCurrentIndex(items.index("#dev · Discord"))
        dialog.accept()

    _when_dialog_opens("picker", screen.filter_menu, pick_channel)
    screen.filter_menu.picker = None
    screen.filter_menu.pick("channel")
    qtbot.waitUntil(lambda: ("channel", "dev") in screen.state.chips, timeout=5000)
    assert screen.ctx.guard.violations == []  # the known values were read off the GUI thread


def test_custom_range_last_month_is_understood_and_a_bad_one_errors_inline(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    screen.add_chip("date", "last 7 days")

    def type_ranges(dialog):
        dialog.text.setText("last mnth")
        dialog.accept()
        assert dialog.isVisible() and "not a period" in dialog.error.text()
        assert dialog.error.isVisible()
        dialog.text.setText("last month")
        dialog.accept()

    _when_dialog_opens("date_dialog", screen.filter_menu, type_ranges)
    screen.filter_menu.ask_date_range()
    # The bad value never became a chip; the good one replaced the old range.
    assert [c for c in screen.state.chips if c[0] == "date"] == [("date", "last month")]
    settle(qtbot)
    assert screen.banner.kind != "error"
    # Searching still works afterwards (the seed is from this week, so "last month" has nothing).
    screen.chip_bar.removed.emit("date", "last month")
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    assert screen.banner.kind != "error"


def test_a_bad_range_added_directly_is_refused_and_search_keeps_working(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    before = screen.state.chips
    screen.add_chip("date", "last mnth")
    assert screen.state.chips == before
    assert screen.banner.kind == "error" and "last month" in screen.banner.text()
    assert "Unexpected" not in screen.banner.text()
    _search(qtbot, screen, "travel line")
    qtbot.waitUntil(lambda: "travel line" in screen.model.rows[0].content, timeout=5000)
    assert screen.banner.kind != "error"
    with pytest.raises(ValueError, match="ends before it starts"):
        SearchState().add_chip("date", "2026-11-15..2026-11-01")


def test_conversation_around_the_hit_loads_more_both_ways(qtbot, services):
    lines = [f"standup note number {i} about the migration" for i in range(20)]
    services.memory.ingest(
        [
            make_message(i, channel="standup", person="kim", content=t, message_id=f"s{i}")
            for i, t in enumerate(lines)
        ]
        + [
            make_message(
                99, channel="standup", person="lee", content="the llama incident report", message_id="s99"
            )
        ]
    )
    window = open_window(qtbot, services)
    screen = window.show_screen("search")
    _search(qtbot, screen, "number 10 migration")
    row = next(r for r, h in enumerate(screen.model.rows) if h.content.startswith("standup note number 10 "))
    screen.table.selectRow(row)
    detail = screen.detail
    qtbot.waitUntil(lambda: detail.record is not None, timeout=5000)
    text = detail.view.toPlainText()
    assert "number 6 " in text and "number 14 " in text and "number 5 " not in text
    assert "Earlier messages" in text and "Later messages" in text
    detail.more("before")
    qtbot.waitUntil(lambda: "number 0 " in detail.view.toPlainText(), timeout=5000)
    assert "Earlier messages" not in detail.view.toPlainText()  # nothing left before
    detail.more("after")
    qtbot.waitUntil(lambda: "llama incident" in detail.view.toPlainText(), timeout=5000)
    assert "Later messages" not in detail.view.toPlainText()
    assert window.ctx.guard.violations == []


def test_open_in_app_link_where_the_platform_has_one(qtbot, services):
    services.memory.ingest(
        [
            make_message(
                1, platform="discord", channel="dev", person="dana", content="ship the hotfix tonight",
                message_id="discord:555:777", metadata={"guild_id": "42", "channel_id": 555},
            )
        ]
    )  # fmt: skip
    window = open_window(qtbot, services)
    screen = window.show_screen("search")
    _search(qtbot, screen, "hotfix")
    screen.open_current()
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    assert not screen.detail.open_button.isHidden()
    assert screen.detail.open_button.text() == "Open in Discord"
    assert screen.detail.link.url == "https://discord.com/channels/42/555/777"


def test_message_links_per_platform():
    assert message_link("discord", "discord:9:8", {}).url == "https://discord.com/channels/@me/9/8"
    assert message_link("telegram", "telegram:-1001234:56", {}).url == "https://t.me/c/1234/56"
    assert message_link("telegram", "telegram:777:56", {}) is None  # private chat: no link exists
    slack = message_link("slack", "slack:T1:C2:1700000000.0001", {})
    assert slack.url == "slack://channel?team=T1&id=C2"
    assert message_link("whatsapp", "whatsapp:abc", {}) is None
    stored = message_link("slack", "x", {"permalink": "https://acme.slack.com/archives/C2/p1"})
    assert stored.url == "https://acme.slack.com/archives/C2/p1" and stored.label == "Open in Slack"
    assert message_link("slack", "x", {"permalink": "javascript:alert(1)"}) is None


def test_selected_row_keeps_highlight_readable(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    screen.table.selectRow(0)
    html = screen.model.index(0, 1).data(Qt.ItemDataRole.UserRole + 2)
    # Selected rows paint white text; the highlight span sets its own dark text on the pale colour.
    assert "color:#1b1b1f" in html
    assert QApplication.palette().highlightedText().color().name() == "#ffffff"


def test_empty_search_offers_example_queries_from_the_store(qtbot, window):
    screen = window.screens["search"]
    screen.reload()
    qtbot.waitUntil(lambda: "Try:" in screen.detail.view.toPlainText(), timeout=5000)
    top = screen.detail.examples[0]
    assert top.split()[0] in {who for _p, _c, who, _t in CONVERSATION}
    assert "example:" in screen.detail.view.toHtml()  # each example is a link
    screen.detail._anchor(QUrl(f"example:{top}"))
    assert screen.query_edit.text() == top
    qtbot.waitUntil(lambda: screen.count_label.text() != "", timeout=5000)


def test_opening_a_message_from_elsewhere_starts_a_clean_search_view(qtbot, window, services):
    """Insights evidence opens in Search without the old query, chips or error banner."""
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    screen.add_chip("platform", "slack")
    screen.add_chip("date", "not a range")  # refused, leaves an error banner
    assert screen.banner.kind == "error"
    record = services.memory.get(int(screen.model.rows[0].id))
    screen.open_message(record)
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    assert screen.query_edit.text() == "" and screen.state.chips == ()
    assert screen.chip_bar.chips() == [] and screen.understood_bar.chips() == []
    assert screen.banner.isHidden()
    assert [h.id for h in screen.model.rows] == [str(record.id)]
    assert screen.count_label.text() == "1 message"
