"""Search screen: debounced search-as-you-type, filter chips, results table, detail with context.

Also shows what the query was understood as (date range, people) as removable chips, says "no
close match" when nothing reaches the relevance floor, and has a toggle to show the nearest anyway.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QSplitter,
    QTableView,
    QToolButton,
)

from app.core.domain import SearchHit
from app.core.search.understanding import ALL_PARTS, DATES, PEOPLE, SearchOutcome, Understood
from app.ui.context import UiContext
from app.ui.delegates import HtmlDelegate
from app.ui.events import DOCUMENTS, MESSAGES, SUMMARIES
from app.ui.highlight import query_terms
from app.ui.loading import QUERY_PLACEHOLDER
from app.ui.models.hits import HitsModel
from app.ui.screens.base import Screen, unavailable
from app.ui.screens.search_detail import DetailPane
from app.ui.search_state import ARCHIVED_INCLUDED, DATE_PRESETS, SearchState
from app.ui.theme import is_dark, term_highlight_colour
from app.ui.widgets import ChipBar

DEBOUNCE_MS = 250
RESULT_LIMIT = 50


class SearchScreen(Screen):
    title = "Search"
    watches = frozenset({MESSAGES, SUMMARIES, DOCUMENTS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.state = SearchState()
        self._seq = 0  # request number: late answers to older queries are dropped
        self.memory = ctx.service("memory")
        self.forgetting = ctx.service("forgetting")  # archived messages show their summary
        self.privacy = ctx.service("privacy")  # secrets masked in the list, click to reveal in detail
        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText(QUERY_PLACEHOLDER)
        self.query_edit.setClearButtonEnabled(True)
        if self.memory is None:
            self.outer.addWidget(self.query_edit)
            unavailable(self, "Search")
            return

        top = QHBoxLayout()
        top.addWidget(self.query_edit, 1)
        self.filter_button = QToolButton()
        self.filter_button.setText("+ Filter")
        self.filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.filter_button.setMenu(self._filter_menu())
        top.addWidget(self.filter_button)
        self.loose_button = QToolButton()
        self.loose_button.setText("Show nearest")
        self.loose_button.setCheckable(True)
        self.loose_button.setToolTip("Also show results that are not a close match")
        self.loose_button.toggled.connect(lambda _on: self.run_search())
        top.addWidget(self.loose_button)
        self.outer.addLayout(top)
        self.chip_bar = ChipBar()
        self.chip_bar.removed.connect(self._remove_chip)
        self.outer.addWidget(self.chip_bar)
        # What the query was understood as; clicking a chip searches again without that part.
        self.understood_bar = ChipBar()
        self.understood_bar.removed.connect(self._drop_understanding)
        self.outer.addWidget(self.understood_bar)
        self.ignored: set[str] = set()  # parts of query understanding taken back for this text

        self.model = HitsModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.delegate = HtmlDelegate(self.table)
        self.table.setItemDelegateForColumn(HitsModel.TEXT_COLUMN, self.delegate)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(True)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(HitsModel.TEXT_COLUMN, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._open_row(cur.row()))

        self.detail = DetailPane(self)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([640, 420])
        self.outer.addWidget(splitter, 1)

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self.run_search)
        self.query_edit.textEdited.connect(self._on_text_edited)
        self.query_edit.returnPressed.connect(self.open_current)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.clear)

    # --- keyboard / entry points ---------------------------------------------------------------
    def focus_query(self, text: str | None = None) -> None:
        if text is not None:
            self.query_edit.setText(text)
            if self.memory is not None:
                self._on_text_edited(text)
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def clear(self) -> None:
        """Esc: empty the query and the results, keep the chips."""
        self.query_edit.clear()
        self._on_text_edited("")
        self.query_edit.setFocus()

    def open_current(self) -> None:
        """Enter: run any pending search now, then open the selected (or first) result."""
        if self.debounce.isActive():
            self.debounce.stop()
            self._open_after_search = True
            self.run_search()
            return
        row = self.table.currentIndex().row()
        if row < 0 and self.model.rowCount():
            row = 0
        if row >= 0:
            self.table.selectRow(row)
            self._open_row(row)
            self.table.setFocus()

    def open_message(self, record: Any) -> None:
        """Show one stored message (e.g. an insight's evidence) as the only result, opened,
        on a clean screen: no earlier query, chips or banner left to contradict it."""
        self.debounce.stop()
        self.query_edit.clear()
        self.state, self.ignored = SearchState(), set()
        self.chip_bar.set_chips([])
        self.understood_bar.set_chips([])
        self.banner.clear_message()
        hit = SearchHit(
            id=str(record.id), kind="message", content=record.content or "", score=1.0,
            platform=record.platform, channel=record.channel, person=record.person,
            timestamp=record.timestamp, tier=str(record.memory_stage), message_id=record.message_id,
            summary_id=record.summary_ref_id, extra={"is_pinned": record.is_pinned},
        )  # fmt: skip
        self._seq += 1  # any search still running must not replace this
        self.model.set_view([], term_highlight_colour(is_dark()))
        self.model.set_rows([hit])
        self.table.selectRow(0)
        self._open_row(0)

    # --- searching ---------------------------------------------------------------------------
    def _on_text_edited(self, text: str) -> None:
        self.state = self.state.with_text(text)
        self.ignored.clear()  # a new query is understood afresh
        self.debounce.start()

    def reload(self) -> None:
        if self.memory is not None and self.state.text.strip():
            self.run_search()

    def run_search(self) -> None:
        self._seq += 1
        seq = self._seq
        text = self.state.text.strip()
        if not text:
            self.model.set_rows([])
            self.detail.show_nothing()
            return
        try:
            filters = self.state.filters(self.ctx.clock.now_ms())
        except ValueError as exc:
            self.banner.show_error(exc)
            return
        memory = self.memory
        include = tuple(sorted(getattr(memory, "extra_sources", {}) or {}))
        loose = self.loose_button.isChecked()
        understand = ALL_PARTS - frozenset(self.ignored)

        privacy = self.privacy

        def search() -> SearchOutcome:
            outcome = memory.search_outcome(
                text, filters, RESULT_LIMIT, include=include, loose=loose, understand=understand
            )
            if privacy is not None:  # the list shows secrets masked (click to reveal in the detail)
                outcome = replace(outcome, hits=privacy.for_display(outcome.hits))
            return outcome

        self.query(search, lambda outcome: self._show_outcome(seq, text, outcome))

    def _show_outcome(self, seq: int, text: str, outcome: SearchOutcome) -> None:
        if seq != self._seq:
            return
        self.understood_bar.set_chips(understood_chips(outcome.understood))
        self._show_hits(seq, text, outcome.hits, outcome)

    def _show_hits(
        self, seq: int, text: str, hits: list[SearchHit], outcome: SearchOutcome | None = None
    ) -> None:
        if seq != self._seq:
            return
        self.banner.clear_message()
        terms = query_terms(text)
        self.model.set_view(terms, term_highlight_colour(is_dark()))
        self.model.set_rows(hits)
        date = outcome.understood.date if outcome is not None else None
        if outcome is not None and outcome.no_close_match and outcome.hidden:
            self.banner.show_message(
                "No close match. Turn on \u201cShow nearest\u201d to see the closest results anyway.", "info"
            )
        elif not hits:
            self.banner.show_message("No results. Try fewer words or remove a filter.", "info")
        elif date is not None and not date.applied:
            self.banner.show_message(
                f"Nothing matched \u201c{date.phrase}\u201d; showing matches from any time.", "info"
            )
        if not hits:
            self.detail.show_nothing()
        if getattr(self, "_open_after_search", False):
            self._open_after_search = False
            self.open_current()

    def _open_row(self, row: int) -> None:
        hit = self.model.row_at(row)
        if hit is not None:
            self.detail.show_hit(hit, self.model.terms)

    # --- filters -------------------------------------------------------------------------------
    def _filter_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction("Platform…", lambda: self._ask_chip("platform", "Platform (slack, discord, …)"))
        menu.addAction("Channel…", lambda: self._ask_chip("channel", "Channel name"))
        menu.addAction("Person…", lambda: self._ask_chip("person", "Person"))
        dates = menu.addMenu("Date")
        for preset in DATE_PRESETS:
            dates.addAction(preset, lambda p=preset: self.add_chip("date", p))
        dates.addAction("Custom range…", lambda: self._ask_chip("date", "YYYY-MM-DD..YYYY-MM-DD"))
        menu.addAction("Include archived messages", lambda: self.add_chip("archived", ARCHIVED_INCLUDED))
        return menu

    def _ask_chip(self, key: str, label: str) -> None:
        value, ok = QInputDialog.getText(self, f"Filter by {key}", label)
        if ok and value.strip():
            self.add_chip(key, value)

    def add_chip(self, key: str, value: str) -> None:
        self.state = self.state.add_chip(key, value)
        self.chip_bar.set_chips(list(self.state.chips))
        self.run_search()

    def _drop_understanding(self, key: str, _value: str) -> None:
        self.ignored.add(DATES if key == "dates" else PEOPLE)
        self.run_search()

    def _remove_chip(self, key: str, value: str) -> None:
        self.state = self.state.remove_chip(key, value)
        self.chip_bar.set_chips(list(self.state.chips))
        self.run_search()

    # --- actions from the detail pane ------------------------------------------------------------
    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def replace_hit(self, hit_id: str, **changes: Any) -> None:
        for row, hit in enumerate(self.model.rows):
            if hit.id == hit_id and hit.kind == "message":
                extra = {**hit.extra, **changes}
                self.model.replace_row(row, _with_extra(hit, extra))

    def drop_hit(self, hit_id: str) -> None:
        for row, hit in enumerate(self.model.rows):
            if hit.id == hit_id and hit.kind == "message":
                self.model.remove_row(row)
                break
        self.detail.show_nothing()


def understood_chips(understood: Understood) -> list[tuple[str, str]]:
    """("dates", "last week") and ("people", "Anna, Omar") chips for what was applied."""
    chips: list[tuple[str, str]] = []
    if understood.date is not None and understood.date.applied:
        chips.append(("dates", understood.date.phrase))
    if understood.people:
        chips.append(("people", ", ".join(understood.people)))
    return chips


def _with_extra(hit: SearchHit, extra: dict[str, Any]) -> SearchHit:
    return replace(hit, extra=extra)
