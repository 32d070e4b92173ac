"""Search screen on real services: type → results, Enter → context, chips, pin, delete, Esc."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.core.clock import DAY_MS
from app.core.errors import NotFound
from app.ui.models.hits import HitsModel
from app.ui.models.rows import HtmlRole
from app.ui.search_state import ARCHIVED_INCLUDED
from app.ui.when import local_time
from tests.conftest import NOW_MS, make_message
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
    # Who · the matched words · where · when; no internal "Tier" column.
    headers = [model.headerData(i, Qt.Orientation.Horizontal) for i in range(model.columnCount())]
    assert headers == ["Who", "Message", "Where", "When"]
    texts = [model.index(r, HitsModel.TEXT_COLUMN).data(HtmlRole) for r in range(model.rowCount())]
    # Highlighted words carry their own dark text colour, readable in a selected (white-text) row.
    assert any('<span style="background:#ff0;color:#1b1b1f;">budget</span>' in t for t in texts)
    assert model.index(0, HitsModel.WHO_COLUMN).data() in {"anna", "ben", "dana"}
    assert model.index(0, HitsModel.WHERE_COLUMN).data() in {"#general", "#dev"}


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


OFFSITE = [
    "The offsite venue in Lisbon is booked for the second week of June",
    "Flights to Lisbon go through the travel desk this time",
    "Hotel block near the Lisbon venue holds thirty rooms",
]


def _archive_offsite(services) -> list[int]:
    """Old messages, then a real forgetting run: the group is summarized and archived."""
    old = NOW_MS - 40 * DAY_MS
    ingested = services.memory.ingest(
        [
            make_message(i, channel="offsite", person="fay", content=text, timestamp=old + i * 60_000)
            for i, text in enumerate(OFFSITE)
        ]
    )
    report = services.forgetting.run()
    assert report.status == "completed" and report.tiers[0].summarized == 1
    return list(ingested.ids)


def test_archived_message_shows_the_summary_that_replaced_it(qtbot, services):
    record = services.memory.get(_archive_offsite(services)[1])
    assert record.archived_at is not None and record.summary_ref_id
    summary = services.forgetting.summary(record.summary_ref_id)

    window = open_window(qtbot, services)
    screen = window.show_screen("search")
    screen.add_chip("archived", ARCHIVED_INCLUDED)
    _search(qtbot, screen, "flights travel desk")
    row = next(i for i, h in enumerate(screen.model.rows) if h.id == str(record.id))
    screen.table.selectRow(row)
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    assert screen.detail.record.id == record.id
    text = screen.detail.view.toPlainText()
    assert "Summary that replaced it" in text
    assert summary.summary_text in text and "3 messages" in text
    assert local_time(summary.start_timestamp) in text and local_time(summary.end_timestamp) in text
    assert all(point in text for point in summary.key_points)
    assert window.ctx.guard.violations == []


def test_summary_hits_show_their_span(qtbot, services):
    _archive_offsite(services)
    window = open_window(qtbot, services)
    screen = window.show_screen("search")
    _search(qtbot, screen, "Lisbon venue")  # archived messages are out; their summary answers
    row = next(i for i, h in enumerate(screen.model.rows) if h.kind == "summary")
    screen.table.selectRow(row)
    qtbot.waitUntil(lambda: "3 messages" in screen.detail.view.toPlainText(), timeout=5000)
    assert "Summary · 3 messages" in screen.detail.view.toPlainText()


def test_known_facets_load_once_and_again_after_messages_change(qtbot, window, services):
    screen = window.screens["search"]
    qtbot.waitUntil(lambda: screen._facets is not None, timeout=5000)  # read when the screen opened
    real_facets, calls = services.memory.facets, []
    screen.memory.facets = lambda: calls.append(1) or real_facets()  # counts the reads, returns the real ones
    seen: list[set[str]] = []
    for n in range(3):  # the empty box's examples and the pickers reuse them
        screen.with_facets(lambda facets: seen.append({name for name, _n in facets.people}))
        qtbot.waitUntil(lambda n=n: len(seen) > n, timeout=5000)
    assert calls == [] and seen[0] == seen[2]
    services.memory.ingest([make_message(900, person="zoe", content="hello from zoe")])
    # The change event drops them; the visible screen's reload reads them again, once.
    qtbot.waitUntil(lambda: bool(calls) and screen._facets is not None, timeout=5000)
    screen.with_facets(lambda facets: seen.append({name for name, _n in facets.people}))
    settle(qtbot)
    assert len(calls) == 1 and seen[3] == seen[0] | {"zoe"}
