"""Memory screen: totals that add up, tiers over the whole history, forgetting status, preview,
run now (confirmed when it archives many messages), undo."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.services.tier_history import ARCHIVED, tier_overview
from app.ui.charts import TimeChart
from app.ui.context import UiContext
from app.ui.events import FORGETTING, MESSAGES, SUMMARIES
from app.ui.formatting import TIER_COLOURS
from app.ui.models.rows import Column, RowsModel
from app.ui.screens.base import Screen, unavailable
from app.ui.screens.memory_text import STATUS_WORDS, plan_html, status_text, totals_html, undo_text
from app.ui.when import exact, parse_iso, relative
from app.ui.widgets import make_table

TIERS = ("short", "mid", "long")
TRIGGER_WORDS = {"manual": "you", "schedule": "schedule", "cli": "command line", "api": "REST API"}
CONFIRM_ARCHIVE_ABOVE = 100  # "Run now" asks first when it would archive more messages than this


def _sum(report: Any, field: str) -> int:
    return sum(getattr(t, field) for t in report.tiers)


class RunsModel(RowsModel[Any]):
    """Rows are the forgetting service's RunReport values, newest first."""

    def __init__(self, now: Any, parent: object = None) -> None:
        super().__init__(
            [
                Column("Started", lambda r: relative(r.started_at, now()),
                       tooltip=lambda r: exact(r.started_at)),
                Column("By", lambda r: TRIGGER_WORDS.get(r.trigger, r.trigger)),
                Column("Result", lambda r: run_result(r, now()), tooltip=lambda r: r.message),
                Column("Kept longer", lambda r: str(_sum(r, "promoted")), align_right=True,
                       header_tooltip="Messages moved to a longer-lived tier"),
                Column("Archived", lambda r: str(_sum(r, "archived")), align_right=True,
                       header_tooltip="Messages whose text now lives in a summary"),
                Column("Summaries", lambda r: str(_sum(r, "summarized")), align_right=True),
            ],
            parent,
        )  # fmt: skip


def run_result(r: Any, now_ms: int) -> str:
    text = STATUS_WORDS.get(r.status, r.status.replace("_", " "))
    return f"{text}, undone {relative(r.undone_at, now_ms)}" if r.undone_at else text


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
        self.totals.setWordWrap(True)
        self.totals.setToolTip(
            "Every stored message is either kept in full (in its tier: short, mid or long term) or "
            "archived: its text is folded into a summary and restored if you undo the run."
        )
        self.outer.addWidget(self.totals)
        self.pending = PendingNotice(self)
        self.outer.addWidget(self.pending)
        self.chart = TimeChart("Your messages by when they were written: kept in full per tier, or archived")
        self.chart.setMinimumHeight(200)

        top = QSplitter(Qt.Orientation.Vertical)
        top.addWidget(self.chart)
        lower = QWidget()
        lower_layout = QHBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        top.addWidget(lower)
        top.setStretchFactor(0, 2)
        top.setStretchFactor(1, 3)
        top.setSizes([320, 480])
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
        self.runs = RunsModel(self.ctx.clock.now_ms)
        self.runs_view = make_table(self.runs)
        status_layout.addWidget(self.runs_view, 1)
        lower_layout.addWidget(status_box, 3)
        self.plan_view = QTextBrowser()
        self.plan_view.setHtml("<p style='color:gray'>Preview shows what the next run would do.</p>")
        lower_layout.addWidget(self.plan_view, 2)
        self._plan_shown = False  # once previewed, the preview follows every change (never stale)
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
        # Two independent loads: a forgetting-engine failure must not blank the tier chart.
        self.query(lambda: (memory.pinned_and_summaries(), *tier_overview(db, user)), self._show_counts)
        if forgetting is not None:
            self.query(lambda: (forgetting.status(), forgetting.runs(limit=20)), self._show_forgetting)
            if self._plan_shown:
                self.preview()

    def _show_counts(self, loaded: tuple[Any, Any, Any]) -> None:
        (pinned, summaries), totals, timeline = loaded
        self.totals.setText(totals_html(totals, pinned=pinned, summaries=summaries))
        names = {"short": "short term", "mid": "mid term", "long": "long term", ARCHIVED: "archived"}
        self.chart.set_data(
            list(timeline.starts),
            {names[k]: timeline.counts.get(k, ()) for k in (*TIERS, ARCHIVED)},
            stacked=True,
            y_title="messages",
            colours={names[k]: c for k, c in {**TIER_COLOURS, ARCHIVED: "#adb5bd"}.items()},
        )

    def _show_forgetting(self, loaded: tuple[Any, Any]) -> None:
        status, runs = loaded
        now = self.ctx.clock.now_ms()
        text, tip = status_text(status, now)
        self.status.setText(text)
        self.status.setToolTip(tip)
        self.runs.set_rows(runs)
        self.pending.show_plan(status.get("pendingPlan"))

    # --- actions -------------------------------------------------------------------------------
    def preview(self) -> None:
        svc = self.forgetting
        self._plan_shown = True
        if not self.plan_view.toPlainText().strip() or "Preview shows" in self.plan_view.toPlainText():
            self.plan_view.setHtml("<p>Planning…</p>")
        self.query(svc.preview, lambda plan: self.plan_view.setHtml(plan_html(plan)))

    def run_now(self) -> None:
        """Plan first (off the GUI thread); a run that archives many messages asks before it starts."""
        svc = self.forgetting
        self.run_button.setEnabled(False)

        def planned(plan: Any) -> None:
            archive = _sum(plan, "archived")
            if archive > CONFIRM_ARCHIVE_ABOVE and not self.confirm(
                "Archive messages",
                f"This run archives {archive} messages into {len(plan.groups)} summaries: their text "
                "leaves search results and is kept in the summaries. You can undo the run afterwards.\n\n"
                f"Archive {archive} messages now?",
            ):
                self.run_button.setEnabled(True)
                self.banner.show_message("Nothing was archived.", "info")
                return
            self._run()

        self.query(svc.preview, planned, failure=self._run_failed)

    def _run(self) -> None:
        svc = self.forgetting
        notices = getattr(self.ctx, "notices", None)
        if notices is not None:
            notices.expect(FORGETTING)

        def done(report: Any) -> None:
            self.run_button.setEnabled(True)
            if notices is not None:
                notices.acknowledge(FORGETTING)  # the user saw this run here: no notice for it
            kind = "ok" if report.status not in ("failed", "skipped_locked") else "info"
            counts = f"{_sum(report, 'promoted')} kept longer, {_sum(report, 'archived')} archived"
            words = STATUS_WORDS.get(report.status, report.status.replace("_", " "))
            self.banner.show_message(f"Forgetting run {words}: {counts}. {report.message}".strip(), kind)

        self.mutate(svc.run, [FORGETTING, MESSAGES, SUMMARIES], done, failure=self._run_failed)

    def _run_failed(self, exc: BaseException) -> None:
        self.run_button.setEnabled(True)
        notices = getattr(self.ctx, "notices", None)
        if notices is not None:
            notices.acknowledge(FORGETTING)
        self.banner.show_error(exc)

    def confirm(self, title: str, text: str) -> bool:
        return QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

    def dismiss_pending(self) -> None:
        svc = self.forgetting

        def done(result: dict[str, Any]) -> None:
            self.pending.show_plan(None)
            resumes = parse_iso(result.get("resumesAt"))
            when = f"{relative(resumes, self.ctx.clock.now_ms())} ({exact(resumes)})" if resumes else "later"
            self.banner.show_message(f"Not now: scheduled forgetting resumes {when}.", "info")

        self.mutate(svc.dismiss_pending, [FORGETTING], done)

    def undo_selected(self) -> None:
        run = self.runs.row_at(self.runs_view.currentIndex().row())
        if run is None or not run.run_id:
            self.banner.show_message("Select a run in the list to undo it.", "info")
            return
        self.undo(run.run_id)

    def undo(self, run_id: str) -> None:
        svc = self.forgetting
        self.mutate(
            lambda: svc.undo(run_id),
            [FORGETTING, MESSAGES, SUMMARIES],
            lambda report: self.banner.show_message(*undo_text(report)),
        )


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
