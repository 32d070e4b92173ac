"""Search screen on real services: type → results, Enter → context, chips, pin, delete, Esc."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.core.errors import NotFound
from app.ui.models.hits import HitsModel
from app.ui.models.rows import HtmlRole
from tests.ui.helpers import open_window, seed, settle


@pytest.fixture
def window(qtbot, services):
    seed(services)
    win = open_window(qtbot, services)
    win.show_screen("search")
    return win


def _search(qtbot, screen, text):
    screen.query_edit.setFocus()
    qtbot.keyClicks(screen.query_edit, text)
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)


def test_hits_model_over_real_search(services):
    seed(services)
    hits = services.memory.search("budget", None, 10)
    model = HitsModel()
    model.set_view(["budget"], "#ff0")
    model.set_rows(hits)
    assert model.rowCount() == len(hits) >= 3
    assert [model.headerData(i, Qt.Orientation.Horizontal) for i in range(5)] == [
        "Source",
        "Person",
        "Time",
        "Tier",
        "Text",
    ]
    texts = [model.index(r, HitsModel.TEXT_COLUMN).data(HtmlRole) for r in range(model.rowCount())]
    assert any('<span style="background:#ff0;">budget</span>' in t for t in texts)
    assert model.index(0, 0).data().startswith(("slack", "discord"))


def test_typing_shows_results_and_enter_opens_context(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "travel line")
    assert screen.model.row_at(0).content.startswith("Please check the travel line")
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    html = screen.detail.view.toPlainText()
    # Neighbouring messages of the same conversation are shown around the hit.
    assert "budget numbers" in html and "Lunch at noon" in html
    assert "charger" not in html  # another channel


def test_platform_chip_narrows_results(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    assert {h.platform for h in screen.model.rows} == {"slack", "discord"}
    screen.add_chip("platform", "discord")
    qtbot.waitUntil(lambda: {h.platform for h in screen.model.rows} == {"discord"}, timeout=5000)
    assert screen.chip_bar.chips() == [("platform", "discord")]
    screen.chip_bar.removed.emit("platform", "discord")
    qtbot.waitUntil(lambda: len({h.platform for h in screen.model.rows}) == 2, timeout=5000)


def test_pin_and_delete_from_detail(qtbot, window, services):
    screen = window.screens["search"]
    _search(qtbot, screen, "charger")
    screen.open_current()
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    record_id = screen.detail.record.id
    screen.detail.pin_button.click()
    qtbot.waitUntil(lambda: screen.detail.pin_button.text() == "Unpin", timeout=5000)
    assert services.memory.get(record_id).is_pinned
    screen.confirm = lambda *_: True
    screen.detail.delete_button.click()
    qtbot.waitUntil(lambda: all(h.id != str(record_id) for h in screen.model.rows), timeout=5000)
    with pytest.raises(NotFound):
        services.memory.get(record_id)


def test_escape_clears_query(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Escape)
    assert screen.query_edit.text() == ""
    qtbot.waitUntil(lambda: screen.model.rowCount() == 0, timeout=5000)


def test_no_service_call_runs_on_gui_thread(qtbot, window):
    screen = window.screens["search"]
    _search(qtbot, screen, "budget")
    screen.open_current()
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    for key in window.screens:
        window.show_screen(key)
        settle(qtbot)
    guard = window.ctx.guard
    assert guard.calls_off_gui > 0
    assert guard.violations == []
