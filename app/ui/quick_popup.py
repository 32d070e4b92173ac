"""Quick search anywhere: a small always-on-top box with live results (Raycast/Spotlight style).

Opened from the tray and by `strata quick`. Typing searches after a short pause, off the GUI
thread (QueryOp); ↑/↓ move through the hits, Enter opens the chosen one in the main window,
Esc hides. The popup never owns data: it hands the hit and the query to `open_hit`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QCursor, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from app.services.insight_hits import drop_insight_twins
from app.ui.formatting import shorten, source_label
from app.ui.icons import icon, platform_icon
from app.ui.models.hits import kind_label, readable
from app.ui.ops import QueryOp
from app.ui.when import exact, relative_time

DEBOUNCE_MS = 150
LIMIT = 8
WIDTH = 640
HEIGHT = 420  # the resting height; the popup grows past it only when its results need the room
SCREEN_MARGIN = 40  # kept free above and below the popup when it grows
SNIPPET_CHARS = 140


class QuickPopup(QWidget):
    """The popup; `memory` may arrive later (the data dir opens in the background)."""

    def __init__(
        self,
        open_hit: Callable[[Any, str], None],
        parent: QWidget | None = None,
        *,
        now_ms: Callable[[], int] | None = None,
    ) -> None:
        flags = Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint
        super().__init__(parent, flags)
        self.setObjectName("quick_popup")
        self.setWindowTitle("Strata quick search")
        self.open_hit = open_hit
        self.now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.memory: Any = None
        self.hits: list[Any] = []
        self._seq = 0
        self._was_active = False

        frame = QFrame(self)
        frame.setObjectName("quick_frame")
        frame.setStyleSheet(
            "QFrame#quick_frame{background:palette(base);border:1px solid palette(mid);border-radius:10px;}"
        )
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(10, 10, 10, 10)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Search your memory…   ↑/↓ choose · Enter open · Esc close")
        self.edit.setStyleSheet("QLineEdit{font-size:16px;padding:6px;border:none;}")
        self.edit.installEventFilter(self)
        layout.addWidget(self.edit)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        # Long snippets wrap inside the popup's width instead of scrolling sideways.
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # typing never leaves the box
        # Pixel scrolling: when the screen is too small for every result, the list moves smoothly
        # instead of jumping a whole (two- or three-line) result at a time.
        self.results.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.results.setStyleSheet("QListWidget{border:none;} QListWidget::item{padding:6px 4px;}")
        self.results.itemActivated.connect(lambda _item: self.open_current())
        self.results.itemClicked.connect(lambda _item: self.open_current())
        layout.addWidget(self.results, 1)
        self.status = QLabel("")
        self.status.setStyleSheet("color: palette(placeholder-text);")
        layout.addWidget(self.status)

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self.run_search)
        self.edit.textEdited.connect(lambda _t: self.debounce.start())
        self.resize(WIDTH, HEIGHT)

    # --- showing ----------------------------------------------------------------------------
    def set_memory(self, memory: Any) -> None:
        self.memory = memory
        if self.isVisible() and self.edit.text().strip():
            self.run_search()

    def popup(self, text: str = "") -> None:
        """Show centred near the top of the screen under the mouse, query box focused."""
        if text:
            self.edit.setText(text)
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            width = min(WIDTH, area.width() - SCREEN_MARGIN)
            self.resize(width, min(HEIGHT, area.height() - 2 * SCREEN_MARGIN))
            self.move(area.x() + (area.width() - width) // 2, area.y() + area.height() // 5)
        self.show()
        self.raise_()
        self.activateWindow()
        self.edit.setFocus()
        self.edit.selectAll()
        if self.edit.text().strip():
            self.run_search()
        elif self.memory is None:
            self.status.setText("Opening your memory…")

    def changeEvent(self, event: QEvent) -> None:
        # Like Spotlight: clicking elsewhere dismisses the popup (only once it had the focus).
        if event.type() == QEvent.Type.ActivationChange:
            if self.isActiveWindow():
                self._was_active = True
            elif self._was_active and self.isVisible():
                self._was_active = False
                self.hide()
        super().changeEvent(event)

    # --- keys -------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self.move_selection(1 if key == Qt.Key.Key_Down else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_current()
                return True
        return super().eventFilter(watched, event)

    def move_selection(self, step: int) -> None:
        count = self.results.count()
        if not count:
            return
        row = self.results.currentRow()
        self.results.setCurrentRow(max(0, min(count - 1, row + step)) if row >= 0 else 0)

    def open_current(self) -> None:
        """Enter: search now if a search is pending, then open the chosen (or first) hit."""
        if self.debounce.isActive():
            self.debounce.stop()
            self.run_search(open_after=True)
            return
        row = self.results.currentRow()
        if row < 0 and self.hits:
            row = 0
        if 0 <= row < len(self.hits):
            text = self.edit.text().strip()
            self.hide()
            self.open_hit(self.hits[row], text)

    # --- searching --------------------------------------------------------------------------
    def run_search(self, *, open_after: bool = False) -> None:
        self._seq += 1
        seq = self._seq
        text = self.edit.text().strip()
        if not text:
            self._show(seq, [], "")
            return
        memory = self.memory
        if memory is None:
            self.status.setText("Opening your memory… results follow in a moment.")
            return
        include = tuple(sorted(getattr(memory, "extra_sources", {}) or {}))
        self.status.setText("Searching…")

        def search() -> Any:
            outcome = memory.search_outcome(text, None, LIMIT, include=include)
            return replace(outcome, hits=drop_insight_twins(outcome.hits))  # one row per message

        def done(outcome: Any) -> None:
            empty = "No close match." if outcome.no_close_match and outcome.hidden else "No results."
            self._show(seq, list(outcome.hits), "" if outcome.hits else empty)
            if open_after and seq == self._seq:
                self.open_current()

        def failed(exc: BaseException) -> None:
            if seq == self._seq:
                self.status.setText(f"Search failed: {exc}")

        QueryOp(parent=self, op=search, success=done).failure(failed).run_in_background()

    def _show(self, seq: int, hits: list[Any], status: str) -> None:
        if seq != self._seq:
            return  # an answer to an older query: the user has typed on since
        self.hits = hits
        self.results.clear()
        now = self.now_ms()
        for hit in hits:
            item = QListWidgetItem(hit_text(hit, now))
            item.setIcon(icon("document") if hit.kind == "chunk" else platform_icon(hit.platform))
            item.setToolTip(exact(hit.timestamp))
            self.results.addItem(item)
        if hits:
            self.results.setCurrentRow(0)
        self.status.setText(status or f"{len(hits)} result{'s' if len(hits) != 1 else ''} · Enter opens")
        self.fit_to_results()

    def fit_to_results(self) -> None:
        """Grow until every result shows whole, as far as the screen allows; shrink back after.

        A fixed height cut the last result in half under its scrolling list. Spotlight-like, the
        popup keeps its top where it opened while there is room below, moves up when there is
        not, and scrolls only when the whole screen is too small.
        """
        screen = self.screen()
        if screen is None:
            return
        area = screen.availableGeometry()
        self.results.scrollToTop()
        self.results.doItemsLayout()
        count = self.results.count()
        content = self.results.visualItemRect(self.results.item(count - 1)).bottom() + 1 if count else 0
        chrome = self.height() - self.results.viewport().height()  # the box, the status line, margins
        room = area.height() - 2 * SCREEN_MARGIN
        height = max(min(HEIGHT, room), min(content + chrome, room))
        if height == self.height():
            return
        top = min(self.y(), area.bottom() + 1 - SCREEN_MARGIN - height)
        self.setGeometry(self.x(), max(area.y() + SCREEN_MARGIN, top), self.width(), height)


def hit_text(hit: Any, now_ms: int) -> str:
    """Two lines: the matched text, then who · where · when (relative; exact on hover)."""
    content = shorten(readable(hit), SNIPPET_CHARS)  # documents without their markdown syntax
    where = source_label(hit.platform, hit.channel)
    if hit.kind == "chunk":  # a knowledge-base document: its file name
        where = str(hit.extra.get("file_name") or hit.channel or "Document")
    if label := kind_label(hit):  # "Insight: …", "Decision: …" as in the Search list
        content = f"{label}: {content}"
    meta = " · ".join(part for part in (hit.person, where, relative_time(hit.timestamp, now_ms)) if part)
    return f"{content}\n{meta}" if meta else content
