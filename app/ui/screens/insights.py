"""Insights screen: ranked list with badges, label/state/lifecycle filters, favorites, detail,
done / dismiss / snooze buttons, insights over time, open loops (with "who are you?" in the app)."""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.clock import DAY_MS
from app.core.errors import ConfigError
from app.ui.charts import SERIES_COLOURS, TimeChart, bucket_counts
from app.ui.context import UiContext
from app.ui.events import INSIGHTS
from app.ui.models.rows import Column, RowsModel, keep_order
from app.ui.screens.base import Screen, unavailable
from app.ui.screens.insights_lifecycle import LIFECYCLE_FILTERS, SNOOZE_DAYS, LifecycleBar, WhoAreYou
from app.ui.when import local_time, parse_iso
from app.ui.widgets import make_table

LEVEL_COLOURS = {
    "critical": "#c92a2a",
    "immediate": "#c92a2a",
    "high": "#e8590c",
    "urgent": "#e8590c",
    "medium": "#1971c2",
    "low": "#868e96",
}
LIST_LIMIT = 200
NARROW_WIDTH = 960  # below this the detail pane moves under the list
ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?")
PICK_ONE = (
    "<p style='color:gray'>Select an insight to see what it is about, who owns it, its timeline and "
    "the messages it comes from. Double-click a message to open it in Search.</p>"
)
CHART_LIMIT = 500  # the service's page limit: the over-time chart counts up to this many insights
TREND_WORDS = {"rising": "views ↑", "falling": "views ↓", "stable": ""}
STATE_HELP = (
    "Active: you opened it in the last 30 days. Dormant: not opened for 30 days (it ranks lower).\n"
    "views ↑ / views ↓: opened more (or less) this week than the week before."
)
KIND_NAMES = {
    "decision": "Decisions",
    "action_item": "Action items",
    "deadline": "Deadlines",
    "question": "Questions",
    "blocker": "Blockers",
    "meeting": "Meetings",
}


def _d(r: Any) -> Any:
    return r.insight.draft


def state_text(r: Any) -> str:
    """ "Dormant" / "Active · views ↑": the state in words, the view trend only when it moves."""
    words = TREND_WORDS.get(r.trend, "")
    return f"{r.state.capitalize()} · {words}" if words else r.state.capitalize()


def where(r: Any) -> str:
    d = _d(r)
    return f"{d.platform} · #{d.channel}" if d.channel else d.platform


def label_text(value: str) -> str:
    return value.replace("_", " ").capitalize()


class InsightsModel(RowsModel[Any]):
    """Rows are RankedInsight values; the screen decides their order (see `keep_order`)."""

    STAR_COLUMN = 0
    TITLE_COLUMN = 2

    def __init__(self, parent: object = None) -> None:
        super().__init__(
            [
                Column("★", lambda r: "★" if r.insight.weights.favorite else "☆",
                       header_tooltip="Favorite: click the star to pin an insight near the top"),
                Column("Priority", lambda r: _d(r).importance.value.capitalize(), colour=_level("importance"),
                       tooltip=lambda r: f"importance {_d(r).importance.value}, "
                       f"urgency {_d(r).urgency.value}"),
                Column("Title", lambda r: _d(r).title,
                       tooltip=lambda r: f"{_d(r).description}\n{where(r)}"
                       + (f" · owner {_d(r).owner}" if _d(r).owner else "")),
                Column("Label", lambda r: label_text(_d(r).task_label)),
                Column("State", state_text, tooltip=lambda _r: STATE_HELP, header_tooltip=STATE_HELP),
                Column("Score", lambda r: f"{r.score:.2f}", align_right=True,
                       header_tooltip="Value × your weighting (favorites, views, age); higher ranks first"),
            ],
            parent,
        )  # fmt: skip


def _level(attr: str) -> Any:
    return lambda r: LEVEL_COLOURS.get(getattr(_d(r), attr).value)


class InsightsScreen(Screen):
    title = "Insights"
    watches = frozenset({INSIGHTS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.insights = ctx.service("insights")
        self.memory = ctx.service("memory")
        if self.insights is None:
            unavailable(self, "The insights service")
            return
        filters = QHBoxLayout()
        self.label_filter = QComboBox()
        self.label_filter.addItem("All labels", None)
        self.state_filter = QComboBox()
        for text, value in (("Active and dormant", None), ("Active", "active"), ("Dormant", "dormant")):
            self.state_filter.addItem(text, value)
        self.state_filter.setToolTip(STATE_HELP)
        self.lifecycle_filter = QComboBox()
        for text, value in LIFECYCLE_FILTERS:
            self.lifecycle_filter.addItem(text, value)
        for combo in (self.label_filter, self.state_filter, self.lifecycle_filter):
            combo.currentIndexChanged.connect(lambda _: self.resort())
            filters.addWidget(combo)
        self.rerank_button = QPushButton("Re-rank")
        self.rerank_button.setToolTip(
            "Sort the list by current score. Opening or starring an insight changes its score, "
            "but the list keeps its order until you press this, so rows never move under the cursor."
        )
        self.rerank_button.clicked.connect(self.resort)
        self.generate_button = QPushButton("Find new insights")
        self.generate_button.clicked.connect(self.generate)
        filters.addStretch(1)
        filters.addWidget(self.rerank_button)
        filters.addWidget(self.generate_button)
        self.outer.addLayout(filters)

        self.model = InsightsModel()
        self.table = make_table(self.model)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(InsightsModel.TITLE_COLUMN, QHeaderView.ResizeMode.Stretch)
        self.table.clicked.connect(self._clicked)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _p: self._open_row(cur.row()))

        self.tabs = QTabWidget()
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        self.lifecycle_bar = LifecycleBar(self.set_lifecycle)
        detail_layout.addWidget(self.lifecycle_bar)
        self.detail = QTextBrowser()
        self.detail.setHtml(PICK_ONE)
        detail_layout.addWidget(self.detail, 3)
        self.evidence = QListWidget()
        self.evidence.setWordWrap(True)
        self.evidence.setToolTip("Double-click (or Enter) to open the message in Search")
        self.evidence.itemActivated.connect(self._open_evidence)
        detail_layout.addWidget(self.evidence, 2)
        self.tabs.addTab(detail, "Detail")
        self.chart = TimeChart("Insights found, by when it happened in the chat")
        self.tabs.addTab(self.chart, "Over time")
        loops = QWidget()
        loops_layout = QVBoxLayout(loops)
        loops_layout.setContentsMargins(0, 0, 0, 0)
        self.who = WhoAreYou(self.save_identities)
        self.who.hide()
        loops_layout.addWidget(self.who)
        self.brief = QTextBrowser()
        loops_layout.addWidget(self.brief, 1)
        names_row = QHBoxLayout()
        self.names_button = QPushButton("Change my names…")
        self.names_button.setToolTip(
            "The names and handles you use in chats; open loops are worked out from them"
        )
        self.names_button.clicked.connect(self.ask_names)
        names_row.addStretch(1)
        names_row.addWidget(self.names_button)
        loops_layout.addLayout(names_row)
        self.tabs.addTab(loops, "Open loops")
        self.tabs.currentChanged.connect(self._tab_changed)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.outer.addWidget(self.splitter, 1)
        self._current: str | None = None
        self._restoring = False
        self._order: list[str] = []  # ids in the order shown; kept across refreshes (see resort)

    def resizeEvent(self, event: Any) -> None:
        # Narrow window: the detail goes below the list, so titles keep a readable width.
        if self.insights is not None:
            narrow = self.width() < NARROW_WIDTH
            wanted = Qt.Orientation.Vertical if narrow else Qt.Orientation.Horizontal
            if self.splitter.orientation() != wanted:
                self.splitter.setOrientation(wanted)
        super().resizeEvent(event)

    # --- list ----------------------------------------------------------------------------------
    def resort(self) -> None:
        """Show the list in the service's current ranking (filters, Re-rank, a new run)."""
        self._order = []
        self.reload()

    def reload(self) -> None:
        if self.insights is None:
            return
        svc = self.insights
        label, state = self.label_filter.currentData(), self.state_filter.currentData()
        lifecycle = self.lifecycle_filter.currentData()
        self.query(
            lambda: svc.list_insights(label=label, state=state, limit=LIST_LIMIT, lifecycle_state=lifecycle),
            self._show_list,
        )
        self._tab_changed(self.tabs.currentIndex())

    def _tab_changed(self, index: int) -> None:
        if index == 1:
            self.load_chart()
        elif index == 2:
            self.load_brief()

    def _show_list(self, items: list[Any]) -> None:
        items = keep_order(self._order, items, lambda r: r.id)
        self._order = [r.id for r in items]
        self.model.set_rows(items)
        self._update_labels(items)
        if not items:
            self.detail.setHtml(
                "<p style='color:gray'>No insights yet. They are found in your messages by a scheduled job; "
                "press <i>Find new insights</i> to look now.</p>"
            )
        row = next((i for i, item in enumerate(items) if item.id == self._current), None)
        if row is not None:
            # Keep the open insight selected and its detail current (scores and trend move with
            # views and favorites) without counting a view: that would publish a change, reload
            # this list and re-select it, forever.
            self._restoring = True
            try:
                self.table.selectRow(row)
            finally:
                self._restoring = False
            self._load_detail(items[row], count_view=False)

    def _update_labels(self, items: list[Any]) -> None:
        known = {self.label_filter.itemData(i) for i in range(1, self.label_filter.count())}
        for label in sorted({_d(r).task_label for r in items} - known):
            self.label_filter.addItem(label_text(label), label)

    def _clicked(self, index: QModelIndex) -> None:
        if index.column() == InsightsModel.STAR_COLUMN:
            self.toggle_favorite(index.row())

    def toggle_favorite(self, row: int) -> None:
        item = self.model.row_at(row)
        if item is None:
            return
        svc, value = self.insights, not item.insight.weights.favorite
        # Starring is asking for a new order: the list re-ranks (the star stays selected).
        self.mutate(lambda: svc.favorite(item.id, value), [INSIGHTS], lambda _: self.resort())

    def set_lifecycle(self, state: str) -> None:
        """Done / dismiss / snooze / reopen the insight in the detail; the list reloads without it."""
        if self._current is None:
            return
        svc, insight = self.insights, self._current
        until = svc.clock.now_ms() + SNOOZE_DAYS * DAY_MS if state == "snoozed" else None
        self.mutate(lambda: svc.set_lifecycle(insight, state, until), [INSIGHTS])

    def generate(self) -> None:
        svc = self.insights
        self.generate_button.setEnabled(False)
        notices = getattr(self.ctx, "notices", None)
        if notices is not None:
            notices.expect(INSIGHTS)  # the run's outcome is said here: no notice for it

        def settled() -> None:
            self.generate_button.setEnabled(True)
            if notices is not None:
                notices.acknowledge(INSIGHTS)

        def done(report: Any) -> None:
            settled()
            self.resort()
            count = len(getattr(report, "ids", ()) or ())
            notices = " ".join(getattr(report, "notices", ()) or ())
            if notices:  # e.g. the daily LLM cap: said out loud, never a silent fallback
                self.banner.show_message(
                    f"Insight run finished: {count} new or updated. {notices}; rule-based extraction "
                    "was used (usage in Settings → Privacy and LLM usage).",
                    "info",
                )
                return
            self.banner.show_message(f"Insight run finished: {count} new or updated.", "ok")

        def failed(exc: BaseException) -> None:
            settled()
            self.banner.show_error(exc)

        self.mutate(
            lambda progress: svc.generate(progress=lambda d, t: progress(d, t, "messages")),
            [INSIGHTS],
            done,
            failure=failed,
            progress=lambda d, t, _l: self.banner.show_message(f"Looking for insights… {d}/{t or '?'}"),
        )

    # --- over time -----------------------------------------------------------------------------
    def load_chart(self) -> None:
        svc = self.insights

        def load() -> tuple[list[int], dict[str, list[int]]]:
            items = svc.list_insights(lifecycle_state="all", limit=CHART_LIMIT)
            points = [
                (_d(r).occurred_at, KIND_NAMES.get(r.insight.kind.value, r.insight.kind.value)) for r in items
            ]
            return bucket_counts(points)

        self.query(load, self._show_chart)

    def _show_chart(self, loaded: tuple[list[int], dict[str, list[int]]]) -> None:
        starts, series = loaded
        ordered = {name: series[name] for name in KIND_NAMES.values() if name in series}
        ordered.update({k: v for k, v in series.items() if k not in ordered})  # a kind added later
        colours = dict(zip(KIND_NAMES.values(), SERIES_COLOURS, strict=False))
        self.chart.set_data(starts, ordered, stacked=True, y_title="insights", colours=colours)

    # --- detail --------------------------------------------------------------------------------
    def _open_row(self, row: int) -> None:
        item = self.model.row_at(row)
        if item is None or self._restoring:
            return
        self._current = item.id
        self._load_detail(item, count_view=True)

    def _load_detail(self, item: Any, *, count_view: bool) -> None:
        """Opening counts a view (the service publishes it, so the list refreshes); a refresh does not."""
        svc, memory, draft = self.insights, self.memory, _d(item)

        def load() -> tuple[Any, Any, list[Any] | None]:
            if not count_view:  # a refreshed row: same evidence, so keep that list and its selection
                return item, svc.trend(item.id, 30), None
            opened = svc.get(item.id)
            evidence = memory.find(draft.platform, draft.evidence) if memory is not None else []
            return opened, svc.trend(item.id, 30), evidence

        self.query(load, self._show_detail)

    def _show_detail(self, loaded: tuple[Any, Any, list[Any] | None]) -> None:
        item, trend, evidence = loaded
        if item.id != self._current:
            return
        self.lifecycle_bar.show_state(item.insight.lifecycle)
        self.detail.setHtml(insight_html(item, trend))
        if evidence is None:
            return
        self.evidence.clear()
        for record in evidence:
            text = (record.content or "(archived)").replace("\n", " ")[:160]
            entry = QListWidgetItem(f"{record.person} · {local_time(record.timestamp)}: {text}")
            entry.setData(Qt.ItemDataRole.UserRole, record)
            self.evidence.addItem(entry)
        if not evidence:
            self.evidence.addItem("No evidence messages stored (they may have been deleted).")

    def _open_evidence(self, entry: QListWidgetItem) -> None:
        record = entry.data(Qt.ItemDataRole.UserRole)
        if record is not None and self.ctx.navigate is not None:
            search = self.ctx.navigate("search")
            search.open_message(record)  # a clean Search: no old query, chips or banner

    # --- open loops ----------------------------------------------------------------------------
    def ask_names(self) -> None:
        """Show the "who are you?" box, filled with the names known now, to change them in place."""
        svc = self.insights
        self.query(svc.me, self._fill_names)

    def _fill_names(self, names: tuple[str, ...]) -> None:
        self.who.names.setText(", ".join(names))
        self.who.show()
        self.who.names.setFocus()

    def load_brief(self) -> None:
        svc = self.insights
        self.query(svc.brief, self._show_brief, failure=self._brief_failed)

    def save_identities(self, names: list[str]) -> None:
        if not names:
            self.who.show_problem("Type at least one name, for example the name people call you in chats.")
            return
        svc = self.insights
        self.mutate(
            lambda: svc.set_me(names), [INSIGHTS], lambda _: self.load_brief(), failure=self.who.show_error
        )

    def _show_brief(self, loops: Any) -> None:
        self.who.hide()
        self.who.problem.hide()
        parts = [f"<p><small>For: {html.escape(', '.join(loops.identities))}</small></p>"]
        for title, items in (
            ("My actions", loops.my_actions),
            ("Waiting on others", loops.waiting_on),
            ("Questions for me", loops.questions_for_me),
        ):
            rows = (
                "".join(f"<li>{_line(r)}</li>" for r in items) or "<li style='color:gray'>nothing open</li>"
            )
            parts.append(f"<h4>{title}</h4><ul>{rows}</ul>")
        self.brief.setHtml("".join(parts))

    def _brief_failed(self, exc: BaseException) -> None:
        if isinstance(exc, ConfigError):
            self.who.show()  # first run: ask who the user is instead of pointing at settings.toml
            self.brief.setHtml("")
            return
        hint = getattr(exc, "hint", None) or ""
        self.brief.setHtml(
            f"<p>{html.escape(str(getattr(exc, 'message', exc)))}</p><p><i>{html.escape(hint)}</i></p>"
        )


def _line(r: Any) -> str:
    d = _d(r)
    due = f" · due {local_time(d.due_at)}" if d.due_at else ""
    who = f" · {html.escape(d.owner)}" if d.owner else ""
    return f"<b>{html.escape(d.title)}</b>{who}{due}"


def _badge(text: str) -> str:
    colour = LEVEL_COLOURS.get(text, "#868e96")
    return f"<span style='color:white;background:{colour};'>&nbsp;{html.escape(text)}&nbsp;</span>"


def readable_times(text: str) -> str:
    """ISO timestamps inside extracted details ("due: 2026-11-15T23:59:00Z") in local time."""

    def local(match: re.Match[str]) -> str:
        ms = parse_iso(match.group(0))
        return local_time(ms) if ms is not None else match.group(0)

    return ISO_TIME.sub(local, text)


def views_text(trend: dict[str, Any] | None) -> str:
    if not trend:
        return ""
    week, month = trend.get("accessCount7d", 0), trend.get("accessCount30d", 0)
    return f"opened {week}× this week, {month}× in 30 days"


def insight_html(r: Any, trend: dict[str, Any] | None = None) -> str:
    d = _d(r)
    kind = KIND_NAMES.get(d.kind.value, d.kind.value).rstrip("s")
    meta = [html.escape(kind), f"label {html.escape(label_text(d.task_label))}", f"{r.insight.lifecycle}"]
    if d.owner:
        meta.append(f"owner {html.escape(d.owner)}")
    if d.due_at:
        meta.append(f"due {local_time(d.due_at)}")
    meta.append(f"{d.platform} · #{html.escape(d.channel)}" if d.channel else d.platform)
    details = "".join(f"<li>{html.escape(readable_times(x))}</li>" for x in d.details)
    timeline = "".join(f"<li>{local_time(t.at)} {html.escape(t.event)}</li>" for t in d.timeline)
    if r.insight.lifecycle_set_at is not None:
        timeline += (
            f"<li>{local_time(r.insight.lifecycle_set_at)} you set it {html.escape(r.insight.lifecycle)}</li>"
        )
    return (
        f"<h3>{'★ ' if r.insight.weights.favorite else ''}{html.escape(d.title)}</h3>"
        f"<p>{_badge(d.importance.value)} {_badge(d.urgency.value)} "
        f"<small>score {r.score:.2f} · {html.escape(state_text(r))}"
        + (f" · {views_text(trend)}" if trend else "")
        + "</small></p>"
        f"<p>{html.escape(d.description)}</p><p><small>{' · '.join(meta)}</small></p>"
        + (f"<h4>Details</h4><ul>{details}</ul>" if details else "")
        + (f"<h4>Timeline</h4><ul>{timeline}</ul>" if timeline else "")
        + "<h4>Evidence</h4>"
    )
