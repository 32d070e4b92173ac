"""Memory screen: counts per tier over time, forgetting status, preview, run now, undo."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.services.tier_history import tier_timeline
from app.ui.charts import StackedAreaChart
from app.ui.context import UiContext
from app.ui.events import FORGETTING, MESSAGES, SUMMARIES
from app.ui.formatting import local_time
from app.ui.models.rows import Column, RowsModel
from app.ui.screens.base import Screen, unavailable
from app.ui.widgets import make_table

TIERS = ("short", "mid", "long")


def _sum(report: Any, field: str) -> int:
    return sum(getattr(t, field) for t in report.tiers)


class RunsModel(RowsModel[Any]):
    """Rows are the forgetting service's RunReport values, newest first."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(
            [
                Column("Started", lambda r: local_time(r.started_at)),
                Column("Trigger", lambda r: r.trigger),
                Column("Status", lambda r: r.status + (" (undone)" if r.undone_at else "")),
                Column("Promoted", lambda r: str(_sum(r, "promoted")), align_right=True),
                Column("Archived", lambda r: str(_sum(r, "archived")), align_right=True),
                Column("Summaries", lambda r: str(_sum(r, "summarized")), align_right=True),
                Column("Run id", lambda r: r.run_id or "", tooltip=lambda r: r.message),
            ],
            parent,
        )


class MemoryScreen(Screen):
    title = "Memory"
    watches = frozenset({MESSAGES, SUMMARIES, FORGETTING})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.memory = ctx.service("memory")
        self.forgetting = ctx.service("forgetting")
        if self.memory is None:
            unavailable(self, "Memory statistics")
            return
        self.totals = QLabel()
        self.totals.setTextFormat(Qt.TextFormat.RichText)
        self.outer.addWidget(self.totals)
        self.pending = PendingNotice(self)
        self.outer.addWidget(self.pending)
        self.chart = StackedAreaChart("Messages per tier, by week of the message")
        self.chart.setMinimumHeight(220)

        top = QSplitter(Qt.Orientation.Vertical)
        top.addWidget(self.chart)
        lower = QWidget()
        lower_layout = QHBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        top.addWidget(lower)
        self.outer.addWidget(top, 1)

        status_box = QGroupBox("Forgetting engine")
        status_layout = QVBoxLayout(status_box)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        status_layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.preview_button = QPushButton("Preview next run")
        self.run_button = QPushButton("Run now")
        self.undo_button = QPushButton("Undo selected run")
        for b in (self.preview_button, self.run_button, self.undo_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        status_layout.addLayout(buttons)
        self.runs = RunsModel()
        self.runs_view = make_table(self.runs)
        status_layout.addWidget(self.runs_view, 1)
        lower_layout.addWidget(status_box, 3)
        self.plan_view = QTextBrowser()
        self.plan_view.setHtml("<p style='color:gray'>Preview shows what the next run would do.</p>")
        lower_layout.addWidget(self.plan_view, 2)
        if self.forgetting is None:
            for b in (self.preview_button, self.run_button, self.undo_button):
                b.setEnabled(False)
            self.status.setText("The forgetting engine is not available in this installation.")
        else:
            self.preview_button.clicked.connect(self.preview)
            self.run_button.clicked.connect(self.run_now)
            self.undo_button.clicked.connect(self.undo_selected)

    # --- loading -------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.memory is None:
            return
        memory, forgetting = self.memory, self.forgetting
        db, user = self.ctx.services.db, self.ctx.services.settings.user_id
        now = self.ctx.clock.now_ms()
        # Two independent loads: a forgetting-engine failure must not blank the tier chart.
        self.query(lambda: (memory.stats(), tier_timeline(db, user, now)), self._show_counts)
        if forgetting is not None:
            self.query(lambda: (forgetting.status(), forgetting.runs(limit=20)), self._show_forgetting)

    def _show_counts(self, loaded: tuple[Any, Any]) -> None:
        stats, timeline = loaded
        by_tier = stats.get("by_tier", {})
        cells = " · ".join(f"<b>{by_tier.get(t, 0)}</b> {t}" for t in TIERS)
        self.totals.setText(
            f"{stats['messages']} messages: {cells} · <b>{stats['archived']}</b> archived · "
            f"<b>{stats['pinned']}</b> pinned · <b>{stats['summaries']}</b> summaries"
        )
        labels = [datetime.fromtimestamp(s / 1000).strftime("%m-%d") for s in timeline.starts]
        self.chart.set_data(labels, {t: timeline.counts.get(t, ()) for t in TIERS})

    def _show_forgetting(self, loaded: tuple[Any, Any]) -> None:
        status, runs = loaded
        self.status.setText(status_text(status))
        self.runs.set_rows(runs)
        self.pending.show_plan(status.get("pendingPlan"))

    # --- actions -------------------------------------------------------------------------------
    def preview(self) -> None:
        svc = self.forgetting
        self.plan_view.setHtml("<p>Planning…</p>")
        self.query(svc.preview, lambda plan: self.plan_view.setHtml(plan_html(plan)))

    def run_now(self) -> None:
        svc = self.forgetting
        self.run_button.setEnabled(False)

        def done(report: Any) -> None:
            self.run_button.setEnabled(True)
            kind = "ok" if report.status not in ("failed", "skipped_locked") else "info"
            counts = f"{_sum(report, 'promoted')} promoted, {_sum(report, 'archived')} archived"
            self.banner.show_message(f"Forgetting run {report.status}: {counts}. {report.message}", kind)

        def failed(exc: BaseException) -> None:
            self.run_button.setEnabled(True)
            self.banner.show_error(exc)

        self.mutate(svc.run, [FORGETTING, MESSAGES, SUMMARIES], done, failure=failed)

    def dismiss_pending(self) -> None:
        svc = self.forgetting

        def done(result: dict[str, Any]) -> None:
            self.pending.show_plan(None)
            self.banner.show_message(f"Not now: scheduled forgetting resumes {result['resumesAt']}.", "info")

        self.mutate(svc.dismiss_pending, [FORGETTING], done)

    def undo_selected(self) -> None:
        run = self.runs.row_at(self.runs_view.currentIndex().row())
        if run is None or not run.run_id:
            self.banner.show_message("Select a run in the list to undo it.", "info")
            return
        svc = self.forgetting

        def done(report: Any) -> None:
            self.banner.show_message(
                f"Undo {report.status}: {report.restored} restored, {report.unarchived} unarchived, "
                f"{report.summaries_removed} summaries removed. {report.message}",
                "ok" if report.status == "undone" else "info",
            )

        self.mutate(lambda: svc.undo(run.run_id), [FORGETTING, MESSAGES, SUMMARIES], done)


class PendingNotice(QFrame):
    """Banner for a scheduled run that waits for the user: Preview / Run / Not now."""

    def __init__(self, screen: MemoryScreen) -> None:
        super().__init__(screen)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        layout.addWidget(self.text, 1)
        self.preview_button = QPushButton("Preview")
        self.run_button = QPushButton("Run")
        self.later_button = QPushButton("Not now")
        self.preview_button.clicked.connect(screen.preview)
        self.run_button.clicked.connect(screen.run_now)
        self.later_button.clicked.connect(screen.dismiss_pending)
        for b in (self.preview_button, self.run_button, self.later_button):
            layout.addWidget(b)
        self.hide()

    def show_plan(self, plan: dict[str, Any] | None) -> None:
        if not plan:
            self.hide()
            return
        self.text.setText(
            f"The scheduled forgetting run would archive {plan['archive']} messages into "
            f"{plan['summaries']} summaries, more than your limit, so it is waiting for you."
        )
        self.show()


def status_text(status: dict[str, Any]) -> str:
    last = status.get("lastRun") or {}
    parts = [
        "enabled" if status.get("enabled") else "disabled in settings",
        f"every {status.get('intervalMinutes')} min",
        f"next run {status.get('nextRun') or 'not scheduled'}",
        f"last run {last.get('startedAt') or 'never'} ({last.get('status', '—')})",
        f"{status.get('summaries', 0)} summaries",
    ]
    lock = status.get("lock")
    if lock and lock.get("active"):
        parts.append("a run is in progress")
    return " · ".join(parts)


def plan_html(plan: Any) -> str:
    if plan.is_empty:
        return "<p>Nothing to forget right now: no group of old messages is large enough.</p>"
    head = "<tr><th>tier</th><th>evaluated</th><th>promoted</th><th>archived</th><th>summaries</th></tr>"
    rows = "".join(
        f"<tr><td>{t.tier.value}</td><td>{t.evaluated}</td><td>{t.promoted}</td>"
        f"<td>{t.archived}</td><td>{t.summarized}</td></tr>"
        for t in plan.tiers
    )
    groups = []
    for g in plan.groups[:30]:
        where = " · ".join(f"{v}" for v in g.dimensions.values() if v)
        groups.append(
            f"<li><b>{g.source_tier.value} → {g.target_tier.value}</b> {html.escape(where)} "
            f"({len(g.decisions)} messages, {local_time(g.start_timestamp)}): "
            f"{html.escape(g.draft.summary_text[:200])}</li>"
        )
    more = f"<p>…and {len(plan.groups) - 30} more groups</p>" if len(plan.groups) > 30 else ""
    return f"<h4>Next run would</h4><table cellspacing=6>{head}{rows}</table><ul>{''.join(groups)}</ul>{more}"
