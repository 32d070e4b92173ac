"""User text is shown as written in the desktop app: never read as Qt rich text (offscreen, real widgets)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from app.core.errors import InvalidInput
from app.ui.models.hits import HitsModel
from app.ui.models.rows import HtmlRole
from app.ui.widgets import Banner
from tests.conftest import NOW_MS, make_message
from tests.ui.helpers import open_window

TRICKY = "R&D: 5 < 6 > 2, &lt;b&gt;not bold&lt;/b&gt; [media omitted] [file: logo.png] [bold]x[/bold]"


def rendered(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def test_search_table_and_detail_show_markup_as_text(qtbot, services) -> None:
    services.memory.ingest(
        [make_message(1, content=TRICKY, person="<i>mallory</i>", timestamp=NOW_MS - 60_000)]
    )
    hits = services.memory.search("logo", None, 5)
    model = HitsModel()
    model.set_view(["logo"], "#ff0")
    model.set_rows(hits)
    assert rendered(model.index(0, HitsModel.TEXT_COLUMN).data(HtmlRole)) == TRICKY

    window = open_window(qtbot, services)
    window.show_screen("search")
    screen = window.screens["search"]
    screen.query_edit.setFocus()
    qtbot.keyClicks(screen.query_edit, "logo")
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    qtbot.keyClick(screen.query_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: screen.detail.record is not None, timeout=5000)
    shown = screen.detail.view.toPlainText()
    assert TRICKY in shown and "<i>mallory</i>" in shown


def test_banner_is_plain_text_unless_asked(qtbot) -> None:
    banner = Banner()
    qtbot.addWidget(banner)
    banner.show_message("Removed <b>team</b> [x]")
    assert banner.textFormat() == Qt.TextFormat.PlainText and banner.text() == "Removed <b>team</b> [x]"
    banner.show_error(InvalidInput("file <img src=x>.txt is empty"))
    assert banner.textFormat() == Qt.TextFormat.RichText
    assert "&lt;img src=x&gt;" in banner.text() and "<img" not in banner.text()
