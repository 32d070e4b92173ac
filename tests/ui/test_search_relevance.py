"""Search screen on real services: "no close match", the "Show nearest" toggle, understood chips."""

from __future__ import annotations

import pytest

from tests.ui.helpers import open_window, seed, settle


@pytest.fixture
def screen(qtbot, services):
    seed(services)
    win = open_window(qtbot, services)
    win.show_screen("search")
    return win.screens["search"]


def _type(qtbot, screen, text):
    screen.query_edit.setFocus()
    screen.query_edit.clear()
    qtbot.keyClicks(screen.query_edit, text)
    screen.debounce.stop()
    screen.run_search()
    settle(qtbot)


def test_nonsense_says_no_close_match_and_the_toggle_shows_the_nearest(qtbot, screen):
    _type(qtbot, screen, "zzqxv")
    qtbot.waitUntil(lambda: "No close match" in screen.banner.text(), timeout=5000)
    assert screen.model.rowCount() == 0
    screen.loose_button.setChecked(True)  # runs the search again, loose
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    assert "No close match" not in screen.banner.text()


def test_people_the_query_names_show_as_a_chip_that_can_be_taken_back(qtbot, screen):
    _type(qtbot, screen, "what did anna say about the budget")
    qtbot.waitUntil(lambda: screen.understood_bar.chips() == [("people", "anna")], timeout=5000)
    assert screen.model.rowCount() > 0
    screen.understood_bar.removed.emit("people", "anna")  # what clicking the chip does
    settle(qtbot)
    qtbot.waitUntil(lambda: screen.understood_bar.chips() == [], timeout=5000)
    assert screen.ignored == {"people"} and screen.model.rowCount() > 0


def test_a_date_range_that_empties_the_result_is_reported_not_dropped(qtbot, screen):
    _type(qtbot, screen, "budget in March 2001")
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    assert "Nothing matched" in screen.banner.text() and "march 2001" in screen.banner.text().lower()
