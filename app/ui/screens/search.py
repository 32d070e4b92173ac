"""Search screen: answer-first results as you type, what the query was understood as, filters, detail.

The result list shows who · the matched words · where · when, with a count; the understood
query (date range, people) and the filters are removable chips; "no close match" comes from the
engine with a "Show nearest" button; sort by relevance or date; person, conversation and platform
pickers list what is stored. Keyboard-first: ↑/↓ move through results from the query box, Enter
opens, Esc clears. The layout turns the detail pane below the list on narrow windows so the
text column keeps its width.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QMessageBox, QSplitter, QToolButton

from app.core.domain import SearchHit
from app.core.search.understanding import ALL_PARTS, DATES, PEOPLE, SearchOutcome
from app.services.insight_hits import drop_insight_twins
from app.ui.context import UiContext
from app.ui.events import DOCUMENTS, MESSAGES, SUMMARIES
from app.ui.highlight import query_terms
from app.ui.icons import icon
from app.ui.loading import QUERY_PLACEHOLDER
from app.ui.models.hits import SORTS, HitsModel, sort_hits
from app.ui.screens.base import Screen, unavailable
from app.ui.screens.search_detail import DetailPane
from app.ui.screens.search_filter_menu import FilterMenu
from app.ui.screens.search_summary import count_text, example_queries, understood_chips
from app.ui.screens.search_table import ResultsTable
from app.ui.search_state import SearchState
from app.ui.theme import is_dark, term_highlight_colour
from app.ui.widgets import ChipBar, muted

DEBOUNCE_MS = 250
RESULT_LIMIT = 50
# Below this screen width the detail pane goes under the list instead of beside it.
SIDE_BY_SIDE_MIN_WIDTH = 900
NAV_KEYS = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -10, Qt.Key.Key_PageDown: 10}


class SearchScreen(Screen):
    title = "Search"
    watches = frozenset({MESSAGES, SUMMARIES, DOCUMENTS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.state = SearchState()
        self._seq = 0  # request number: late answers to older queries are dropped
        self._hits: list[SearchHit] = []  # in the engine's (relevance) order
        self._open_after_search = False
        # Known people, conversations and platforms: loaded once, kept until messages change.
        self._facets: Any = None
        self._facets_version = 0  # bumped by a change: a load started before it is not kept
        self.memory = ctx.service("memory")
        self.forgetting = ctx.service("forgetting")  # archived messages show their summary
        self.privacy = ctx.service("privacy")  # secrets masked in the list, click to reveal in detail
        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText(QUERY_PLACEHOLDER)
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        if self.memory is None:
            self.outer.addWidget(self.query_edit)
            unavailable(self, "Search")
            return

        top = QHBoxLayout()
        top.addWidget(self.query_edit, 1)
        self.filter_button = QToolButton()
        self.filter_button.setText("Filter")
        self.filter_button.setIcon(icon("filter"))
        self.filter_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.filter_menu = FilterMenu(self)
        self.filter_button.setMenu(self.filter_menu)
        top.addWidget(self.filter_button)
        self.sort_combo = QComboBox()
        for key, label in SORTS.items():
            self.sort_combo.addItem(icon("sort"), label, key)
        self.sort_combo.setToolTip("Order of the results")
        self.sort_combo.currentIndexChanged.connect(lambda _i: self._apply_sort())
        top.addWidget(self.sort_combo)
        self.outer.addLayout(top)

        chips = QHBoxLayout()
        # What the query was understood as; clicking a chip searches again without that part.
        self.understood_bar = ChipBar()
        self.understood_bar.removed.connect(self._drop_understanding)
        self.chip_bar = ChipBar()
        self.chip_bar.removed.connect(self._remove_chip)
        chips.addWidget(self.understood_bar)
        chips.addWidget(self.chip_bar)
        chips.addStretch(1)
        self.outer.addLayout(chips)
        self.ignored: set[str] = set()  # parts of query understanding taken back for this text

        status = QHBoxLayout()
        self.count_label = muted()
        self.count_label.setObjectName("result_count")
        status.addWidget(self.count_label, 1)
        self.loose_button = QToolButton()
        self.loose_button.setText("Show nearest")
        self.loose_button.setCheckable(True)
        self.loose_button.setToolTip("Also show results that are not a close match")
        self.loose_button.toggled.connect(lambda _on: self.run_search())
        status.addWidget(self.loose_button)
        self.outer.addLayout(status)

        self.model = HitsModel(now_ms=ctx.clock.now_ms)
        self.table = ResultsTable(self.model)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._open_row(cur.row()))
        self.table.activated.connect(lambda index: self._open_row(index.row()))

        self.detail = DetailPane(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.detail)
        self.outer.addWidget(self.splitter, 1)
        self._layout_for_width(self.width())

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self.run_search)
        self.query_edit.textEdited.connect(self._on_text_edited)
        self.query_edit.returnPressed.connect(self.open_current)
        self.query_edit.installEventFilter(self)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.clear)

    # --- layout ---------------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.memory is not None:
            self._layout_for_width(event.size().width())

    def _layout_for_width(self, width: int) -> None:
        wanted = Qt.Orientation.Horizontal if width >= SIDE_BY_SIDE_MIN_WIDTH else Qt.Orientation.Vertical
        if self.splitter.orientation() == wanted and self.splitter.property("laidOut"):
            return
        self.splitter.setOrientation(wanted)
        self.splitter.setProperty("laidOut", True)
        total = max(width, 400) if wanted == Qt.Orientation.Horizontal else max(self.height(), 300)
        share = 0.6 if wanted == Qt.Orientation.Horizontal else 0.55
        self.splitter.setSizes([int(total * share), int(total * (1 - share))])

    # --- keyboard / entry points ----------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # ↑/↓ in the query box move through the results without leaving the box.
        if watched is self.query_edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            step = NAV_KEYS.get(Qt.Key(event.key()))
            if step is not None and self.model.rowCount():
                current = self.table.currentIndex().row()
                row = 0 if current < 0 else min(max(current + step, 0), self.model.rowCount() - 1)
                self.table.selectRow(row)
                return True
        return super().eventFilter(watched, event)

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
        """Show one stored message (e.g. an insight's evidence) as the only result, opened."""
        hit = SearchHit(
            id=str(record.id), kind="message", content=record.content or "", score=1.0,
            platform=record.platform, channel=record.channel, person=record.person,
            timestamp=record.timestamp, tier=str(record.memory_stage), message_id=record.message_id,
            summary_id=record.summary_ref_id, extra={"is_pinned": record.is_pinned},
        )  # fmt: skip
        self._seq += 1  # any search still running must not replace this
        self.debounce.stop()
        # A fresh view: no query, chips or banner from an earlier search next to this message.
        self.query_edit.clear()
        self.state = SearchState()
        self.ignored.clear()
        self.chip_bar.set_chips([])
        self.understood_bar.set_chips([])
        self.banner.clear_message()
        self.model.set_view([], term_highlight_colour(is_dark()))
        self._hits = [hit]
        self.model.set_rows([hit])
        self.count_label.setText("1 message")
        self.table.selectRow(0)
        self._open_row(0)

    # --- searching ------------------------------------------------------------------------------
    def _on_text_edited(self, text: str) -> None:
        self.state = self.state.with_text(text)
        self.ignored.clear()  # a new query is understood afresh
        self.debounce.start()

    def reload(self) -> None:
        if self.memory is None:
            return
        if self.state.text.strip():
            self.run_search()
        else:
            self.with_facets(lambda facets: self.detail.set_examples(example_queries(facets)))

    def with_facets(self, use: Callable[[Any], None]) -> None:
        """Call `use` with the known facets: read off the GUI thread the first time and after
        messages change (in this process or, through the change marker, in another one)."""
        if self._facets is not None:
            use(self._facets)
            return

        version = self._facets_version

        def loaded(facets: Any) -> None:
            if version == self._facets_version:
                self._facets = facets
            use(facets)

        self.query(self.memory.facets, loaded)

    def _on_changed(self, changes: Any) -> None:
        if changes.touches(MESSAGES):
            self._facets, self._facets_version = None, self._facets_version + 1
        super()._on_changed(changes)

    def run_search(self) -> None:
        self._seq += 1
        seq = self._seq
        text = self.state.text.strip()
        if not text:
            self._hits = []
            self.model.set_rows([])
            self.count_label.setText("")
            self.understood_bar.set_chips([])
            self.banner.clear_message()
            self.detail.show_nothing()
            return
        try:
            filters = self.state.filters(self.ctx.clock.now_ms())
        except ValueError as exc:  # chips are checked when added; say so plainly if one slips by
            self.banner.show_message(f"A filter is not valid: {exc}. Remove it to search again.", "error")
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
            outcome = replace(outcome, hits=drop_insight_twins(outcome.hits))  # one row per message
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
        date = outcome.understood.date if outcome is not None else None
        terms = query_terms(text, skip=date.phrase if date is not None else "")
        self.model.set_view(terms, term_highlight_colour(is_dark()))
        self._hits = list(hits)
        self._apply_sort()
        hidden = outcome.hidden if outcome is not None else 0
        self.count_label.setText(count_text(len(hits), hidden, self.loose_button.isChecked(), RESULT_LIMIT))
        if outcome is not None and outcome.no_close_match and outcome.hidden:
            self.banner.show_message(
                "No close match. Click \u201cShow nearest\u201d to see the closest results anyway.", "info"
            )
        elif not hits:
            self.banner.show_message("No results. Try fewer words or remove a filter.", "info")
        elif date is not None and not date.applied:
            self.banner.show_message(
                f"Nothing matched \u201c{date.phrase}\u201d; showing matches from any time.", "info"
            )
        if self._open_after_search:
            self._open_after_search = False
            self.open_current()

    def _apply_sort(self) -> None:
        """Show `_hits` in the chosen order; the open result stays open only if it is still listed."""
        open_hit = self.detail.hit
        self.model.set_rows(sort_hits(self._hits, self.sort_combo.currentData() or "relevance"))
        row = next(
            (
                r
                for r, h in enumerate(self.model.rows)
                if open_hit and (h.kind, h.id) == (open_hit.kind, open_hit.id)
            ),
            -1,
        )
        if row < 0:
            self.detail.show_nothing()
            return
        selection = self.table.selectionModel()
        selection.blockSignals(True)  # same item: keep the pane (and its loaded context) as it is
        self.table.selectRow(row)
        selection.blockSignals(False)

    def _open_row(self, row: int) -> None:
        hit = self.model.row_at(row)
        if hit is not None:
            self.detail.show_hit(hit, self.model.terms)

    # --- filters --------------------------------------------------------------------------------
    def add_chip(self, key: str, value: str) -> None:
        try:
            self.state = self.state.add_chip(key, value)
        except ValueError as exc:
            self.banner.show_message(str(exc), "error")
            return
        self.chip_bar.set_chips(list(self.state.chips))
        self.run_search()

    def _drop_understanding(self, key: str, _value: str) -> None:
        self.ignored.add(DATES if key == "dates" else PEOPLE)
        self.run_search()

    def _remove_chip(self, key: str, value: str) -> None:
        self.state = self.state.remove_chip(key, value)
        self.chip_bar.set_chips(list(self.state.chips))
        self.run_search()

    # --- actions from the detail pane -----------------------------------------------------------
    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def replace_hit(self, hit_id: str, **changes: Any) -> None:
        self._hits = [_with_extra(h, {**h.extra, **changes}) if _is(h, hit_id) else h for h in self._hits]
        for row, hit in enumerate(self.model.rows):
            if _is(hit, hit_id):
                self.model.replace_row(row, _with_extra(hit, {**hit.extra, **changes}))

    def drop_hit(self, hit_id: str) -> None:
        self._hits = [h for h in self._hits if not _is(h, hit_id)]
        for row, hit in enumerate(self.model.rows):
            if _is(hit, hit_id):
                self.model.remove_row(row)
                break
        self.count_label.setText(count_text(len(self._hits), 0, self.loose_button.isChecked()))
        self.detail.show_nothing()


def _is(hit: SearchHit, hit_id: str) -> bool:
    return hit.id == hit_id and hit.kind == "message"


def _with_extra(hit: SearchHit, extra: dict[str, Any]) -> SearchHit:
    return replace(hit, extra=extra)


__all__ = ["SearchScreen", "count_text", "example_queries", "understood_chips"]
