"""Issue 15 "Layout" reproductions for Search: the text column keeps the width, metadata compacts,
no internal names and no emoji in the results; the pure display helpers behind them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.core.domain import SearchHit
from app.ui.formatting import channel_label, initials, source_label
from app.ui.highlight import highlight_html, readable_on
from app.ui.models.hits import HitsModel
from app.ui.models.rows import HtmlRole
from app.ui.when import exact, relative_time
from tests.conftest import NOW_MS, make_message
from tests.ui.helpers import open_window, seed, settle

MINUTE = 60_000
ROWS = [
    ("slack", "general", "anna", "The budget review for the launch is on Thursday " * 3),
    ("telegram", "dm:lena", "lena", "Can you send me the budget sheet before Thursday?"),
    ("whatsapp", "Family group", "mum", "Dinner budget: we split it four ways"),
    ("discord", "dev", "dana", "Budget approval blocks the deploy pipeline"),
]


@pytest.fixture
def screen(qtbot, services):
    seed(services, ROWS)
    window = open_window(qtbot, services)
    window.show_screen("search")
    screen = window.screens["search"]
    screen.focus_query("budget")
    screen.run_search()
    qtbot.waitUntil(lambda: screen.model.rowCount() == len(ROWS), timeout=5000)
    return window, screen


@pytest.mark.parametrize("size", [(800, 560), (900, 600), (1180, 760), (1440, 900), (3840, 2160)])
def test_text_column_gets_the_width_at_every_size(qtbot, screen, size):
    window, screen = screen
    window.resize(*size)
    settle(qtbot)
    table = screen.table
    text = table.columnWidth(HitsModel.TEXT_COLUMN)
    total = sum(table.columnWidth(c) for c in range(screen.model.columnCount()))
    assert text >= total / 2, (size, text, total)
    # Everything fits: no horizontal scrolling to reach the message.
    assert total <= table.viewport().width() + 1
    assert not table.horizontalScrollBar().isVisible()


def test_narrow_window_puts_detail_below_and_shows_avatars_only(qtbot, screen):
    window, screen = screen
    window.resize(900, 600)
    settle(qtbot)
    assert screen.splitter.orientation() == Qt.Orientation.Vertical
    window.resize(800, 560)
    settle(qtbot)
    assert screen.model.compact
    assert screen.model.index(0, HitsModel.WHO_COLUMN).data() == ""  # the avatar carries the initials
    assert screen.model.index(0, HitsModel.WHO_COLUMN).data(Qt.ItemDataRole.DecorationRole) is not None
    assert screen.model.index(0, HitsModel.WHO_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    window.resize(1440, 900)
    settle(qtbot)
    assert screen.splitter.orientation() == Qt.Orientation.Horizontal
    assert not screen.model.compact
    assert screen.model.index(0, HitsModel.WHO_COLUMN).data() in {"anna", "lena", "mum", "dana"}


def test_rows_wrap_with_a_height_cap(qtbot, screen):
    window, screen = screen
    window.resize(900, 600)
    settle(qtbot)
    line = screen.table.fontMetrics().lineSpacing()
    heights = [screen.table.rowHeight(r) for r in range(screen.model.rowCount())]
    assert max(heights) <= line * 4 + 12  # the long message wraps but stops at four lines
    assert max(heights) > line * 2


def test_no_internal_names_or_emoji_in_results(qtbot, screen):
    _window, screen = screen
    model = screen.model
    cells = [
        str(model.index(r, c).data(HtmlRole) or model.index(r, c).data() or "")
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    ]
    shown = " ".join(cells)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "Tier" not in headers and all("_" not in h for h in headers)
    assert "dm:" not in shown and "Direct message with lena" in shown
    assert "#Family group" not in shown and "Family group" in shown
    assert not any(ord(ch) >= 0x1F300 for ch in shown)  # no emoji: they render as boxes without a font
    tips = " ".join(
        str(model.index(r, HitsModel.WHERE_COLUMN).data(Qt.ItemDataRole.ToolTipRole))
        for r in range(model.rowCount())
    )
    assert "WhatsApp" in tips and "Telegram" in tips and "whatsapp" not in tips


def test_documents_and_pins_are_named_and_marked_with_icons():
    doc = SearchHit(
        id="c1", kind="chunk", content="vacation policy", score=0.9, platform="knowledge_base",
        channel="Aurora Launch Plan.docx", person="", timestamp=NOW_MS, tier=None,
        extra={"file_name": "Aurora Launch Plan.docx"},
    )  # fmt: skip
    pinned = SearchHit(
        id="1", kind="message", content="keep this", score=0.9, platform="slack", channel="general",
        person="anna", timestamp=NOW_MS, tier="short", extra={"is_pinned": True},
    )  # fmt: skip
    model = HitsModel(now_ms=lambda: NOW_MS)
    model.set_rows([doc, pinned])
    assert model.index(0, HitsModel.WHERE_COLUMN).data() == "Aurora Launch Plan.docx"
    assert "knowledge_base" not in str(
        model.index(0, HitsModel.WHERE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    )
    assert "pin.svg" in model.index(1, HitsModel.TEXT_COLUMN).data(HtmlRole)
    assert model.index(1, HitsModel.WHEN_COLUMN).data() == "just now"
    assert "2026" in model.index(1, HitsModel.WHEN_COLUMN).data(Qt.ItemDataRole.ToolTipRole)


def test_display_helpers():
    now = NOW_MS  # Saturday 21 November 2026, 12:00 UTC
    assert relative_time(now - 30_000, now) == "just now"
    assert relative_time(now - 12 * MINUTE, now) == "12 min ago"
    assert relative_time(now - 26 * 60 * MINUTE, now) == "yesterday"
    assert relative_time(now - 3 * 24 * 60 * MINUTE, now) == "3 days ago"
    assert relative_time(now - 19 * 24 * 60 * MINUTE, now) == "2 Nov"
    assert relative_time(now - 400 * 24 * 60 * MINUTE, now).endswith("2025")
    assert exact(now).startswith("Saturday 21 November 2026")
    assert initials("Anna Berg") == "AB" and initials("dm:lena") == "L" and initials("") == "?"
    assert channel_label("slack", "dm:lena") == "Direct message with lena"
    assert channel_label("slack", "general") == "#general"
    assert channel_label("whatsapp", "Family") == "Family"
    assert source_label("knowledge_base", "Plan.docx") == "Plan.docx"
    assert source_label("whatsapp", "Family") == "Family · WhatsApp"
    # Highlighted words stay readable in a selected row: dark text on the pale highlight.
    assert readable_on("#fff1a8") == "#1b1b1f" and readable_on("#6b5a00") == "#ffffff"
    assert 'color:#1b1b1f;">budget</span>' in highlight_html("the budget", ["budget"], "#fff1a8")


@pytest.mark.parametrize("size", [(1180, 760), (1100, 700)])
def test_an_open_detail_with_its_link_does_not_squeeze_the_list(qtbot, services, size):
    services.memory.ingest(
        [
            make_message(
                1, platform="slack", channel="launch", person="anna",
                message_id="slack:T1:C1:1700000000.0001",
                content="The launch checklist lives in the shared drive, owners are listed per item",
            )
        ]
    )  # fmt: skip
    window = open_window(qtbot, services)
    screen = window.show_screen("search")
    window.resize(*size)
    screen.focus_query("launch checklist")
    screen.run_search()
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    screen.open_current()
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    settle(qtbot)
    assert not screen.detail.open_button.isHidden() and screen.detail.open_button.text() == "Open in Slack"
    assert screen.splitter.orientation() == Qt.Orientation.Horizontal
    table = screen.table
    total = sum(table.columnWidth(c) for c in range(screen.model.columnCount()))
    assert table.columnWidth(HitsModel.TEXT_COLUMN) >= total / 2
    assert table.width() >= screen.detail.width()  # the list keeps the larger share


def test_memory_pages_read_as_pages_not_as_a_nameless_person():
    page = SearchHit(
        id="file:people/ben.md", kind="memory_file", content="ben\n- own the status page", score=0.5,
        platform=None, channel="people/ben.md", person=None, timestamp=NOW_MS, tier=None,
        extra={"path": "people/ben.md", "title": "ben"},
    )  # fmt: skip
    model = HitsModel(now_ms=lambda: NOW_MS)
    model.set_rows([page])
    assert model.index(0, HitsModel.WHO_COLUMN).data() == "Memory page"
    assert model.index(0, HitsModel.WHERE_COLUMN).data() == "ben"
    assert "people/ben.md" in model.index(0, HitsModel.WHERE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)


def test_markdown_syntax_is_not_shown_in_snippets():
    from app.ui.formatting import plain_markdown

    page = (
        "- [ ] **ben**: own the page ([source](strata://message/4)) [[channels/slack-launch|#launch (slack)]]"
    )
    assert plain_markdown(page) == "ben: own the page #launch (slack)"
    assert plain_markdown("## Budget\nSee [the sheet](https://x.example/s)") == "Budget\nSee the sheet"
