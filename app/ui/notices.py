"""No changes behind the user's back: watch the store for writes this window did not make
(scheduled jobs, other processes), refresh the views they touch, and say what changed.

`ChangeWatcher` polls `change_marker` off the GUI thread every few seconds. A changed kind is
published on the window's event bus, so every screen showing it reloads (a forgetting run made
by a `strata serve` in another process updates the Memory screen). Forgetting runs the user did
not start, new insights and connector syncs also become a notice in the window's status bar,
with a link to review and, for forgetting, to undo. The same poll reads the embedding backlog
for the status bar's "Embedding N messages" line (`backlog_status.py`), and the keyword reindex's progress.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.ui.backlog_status import BacklogLabel
from app.ui.events import ALL_KINDS, CONNECTORS, FORGETTING, INSIGHTS, MESSAGES, SUMMARIES, Changes
from app.ui.ops import MutateOp, QueryOp

POLL_MS = 3000


@dataclass(frozen=True)
class Notice:
    """One thing that changed: the sentence, where to review it, and an optional undo."""

    text: str
    review: str  # a screen key for ctx.navigate
    undo_label: str = ""
    undo: Callable[[], Any] | None = None  # a service call, run off the GUI thread
    undo_changes: tuple[str, ...] = ()


def _sum(report: Any, field: str) -> int:
    return sum(getattr(t, field) for t in report.tiers)


def forgetting_notices(runs: list[Any], seen_started: int, forgetting: Any) -> list[Notice]:
    """Runs started after `seen_started` that changed data (the caller keeps quiet about the
    user's own runs from this window: it knows when they happen)."""
    out = []
    for run in sorted(runs, key=lambda r: r.started_at):
        archived, promoted = _sum(run, "archived"), _sum(run, "promoted")
        if run.started_at <= seen_started or run.dry_run or not run.run_id:
            continue
        if run.undone_at or not (archived or promoted):
            continue
        who = "Scheduled forgetting" if run.trigger == "schedule" else "A forgetting run started elsewhere"
        run_id = run.run_id
        kept = f" and kept {promoted} longer" if promoted else ""
        out.append(
            Notice(
                f"{who} archived {archived} messages into {_sum(run, 'summarized')} summaries{kept}.",
                review="memory",
                undo_label="Undo",
                undo=lambda run_id=run_id: forgetting.undo(run_id),
                undo_changes=(FORGETTING, MESSAGES, SUMMARIES),
            )
        )
    return out


def sync_notices(before: dict[str, tuple[Any, int]], states: list[Any]) -> list[Notice]:
    """Connectors whose last sync is newer than `before` (id → (last_sync_at, messages_total))."""
    out = []
    for s in states:
        last, total = before.get(s.id, (None, 0))
        if s.last_sync_at and s.last_sync_at != last and s.messages_total > total:
            out.append(
                Notice(
                    f"{s.kind.capitalize()} “{s.id}” synced: {s.messages_total - total} new messages.",
                    "connectors",
                )
            )
    return out


class ChangeWatcher(QObject):
    """Polls the change marker; publishes changed kinds and posts notices to `on_notice`."""

    def __init__(
        self,
        ctx: Any,
        on_notice: Callable[[Notice], None],
        parent: QObject | None = None,
        on_backlog: Callable[[dict[str, Any] | None], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.on_notice = on_notice
        self.on_backlog = on_backlog  # gets the embedding backlog's status at every poll
        self.services = ctx.services
        self.user = ctx.services.settings.user_id
        self.marker: dict[str, tuple[Any, ...]] | None = None
        self.seen_started = 0  # newest forgetting run start already accounted for
        self.syncs: dict[str, tuple[Any, int]] = {}
        self.in_flight: set[str] = set()  # kinds the user is changing here right now (no notice)
        self.absorb: set[str] = set()  # kinds the user just changed here: the next poll takes them in
        self._running = False
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll_now)
        self.timer.start()
        self.poll_now()

    # --- the user's own changes -----------------------------------------------------------------
    def expect(self, kind: str) -> None:
        """The user started a change of `kind` in this window: its results need no notice."""
        self.in_flight.add(kind)

    def acknowledge(self, kind: str) -> None:
        """The user's change of `kind` finished and was shown; take the data as seen."""
        self.in_flight.discard(kind)
        self.absorb.add(kind)
        QTimer.singleShot(0, self.poll_now)  # the poll absorbs it, then notices resume

    def quiet(self, kind: str) -> bool:
        return kind in self.in_flight or kind in self.absorb

    # --- polling ----------------------------------------------------------------------------------
    def poll_now(self) -> None:
        if self._running:
            return
        self._running = True
        db, user, services = self.services.db, self.user, self.services
        before, first = self.marker, self.marker is None
        seen_started, syncs = self.seen_started, dict(self.syncs)

        want_backlog = self.on_backlog is not None

        def load() -> tuple[Any, ...]:
            from app.services.change_marker import change_marker  # SQLAlchemy: not at window start

            marker = change_marker(db, user)
            changed = set(marker) if first else changed_kinds(before or {}, marker)
            forgetting, connectors = (
                getattr(services, "forgetting", None),
                getattr(services, "connectors", None),
            )
            runs = forgetting.runs(limit=10) if forgetting is not None and FORGETTING in changed else None
            states = connectors.list_all() if connectors is not None and CONNECTORS in changed else None
            return marker, runs, states, _backlog(services) if want_backlog else None

        QueryOp(parent=self, op=load, success=lambda r: self._compare(r, first, seen_started, syncs)).failure(
            self._failed
        ).run_in_background()

    def _failed(self, _exc: BaseException) -> None:
        self._running = False  # a locked or closing store: try again at the next tick

    def _compare(self, loaded: Any, first: bool, seen_started: int, syncs: dict[str, Any]) -> None:
        self._running = False
        marker, runs, states, backlog = loaded
        if self.on_backlog is not None:
            self.on_backlog(backlog)
        before, self.marker = self.marker or {}, marker
        notices: list[Notice] = []
        if runs is not None:
            if not first and not self.quiet(FORGETTING):
                notices += forgetting_notices(runs, seen_started, self.services.forgetting)
            self.seen_started = max([seen_started, *(r.started_at for r in runs)])
        if states is not None:
            if not first and not self.quiet(CONNECTORS):
                notices += sync_notices(syncs, states)
            self.syncs = {s.id: (s.last_sync_at, s.messages_total) for s in states}
        if first:
            return
        changed = changed_kinds(before, marker)
        new_insights = _count(marker, INSIGHTS) - _count(before, INSIGHTS)
        if INSIGHTS in changed and new_insights > 0 and not self.quiet(INSIGHTS):
            notices.append(Notice(f"{new_insights} new insights were found in your messages.", "insights"))
        self.absorb.clear()
        kinds = {k for k in changed if k in ALL_KINDS}
        if kinds:
            self.ctx.events.publish(Changes(frozenset(kinds)))
        for notice in notices:
            self.on_notice(notice)


def _backlog(services: Any) -> dict[str, Any] | None:
    """The embedding backlog's status (a partial-index count) with the keyword reindex's progress
    (`keyword_reindex`, as in `GET /api/stats`), or None without a memory service."""
    memory = getattr(services, "memory", None)
    if memory is None:
        return None
    status = dict(memory.embedding_backlog())
    index = getattr(services, "index", None)
    keyword_format = index.keyword_format() if index is not None else None
    if keyword_format is not None:
        status["keyword_reindex"] = keyword_format.to_dict()
    return status


def changed_kinds(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> set[str]:
    from app.services.change_marker import changed_kinds as changed

    return changed(before, after)


def _count(marker: dict[str, tuple[Any, ...]], kind: str) -> int:
    values = marker.get(kind) or (0,)
    return int(values[0] or 0)


class NoticeBar(QFrame):
    """The latest notice with Review / Undo / Dismiss; older ones wait behind it ("+2 more")."""

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.queue: list[Notice] = []
        self.setObjectName("noticebar")
        self.setStyleSheet(
            "#noticebar{background:#e8efff;border-radius:6px;} #noticebar QLabel{color:#1b2a55;}"
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 4, 2)
        self.text = QLabel()
        self.text.setWordWrap(True)
        row.addWidget(self.text, 1)
        self.review_button = QPushButton("Review")
        self.undo_button = QPushButton("Undo")
        self.dismiss_button = QPushButton("Dismiss")
        for b in (self.review_button, self.undo_button, self.dismiss_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        self.review_button.clicked.connect(self.review)
        self.undo_button.clicked.connect(self.undo)
        self.dismiss_button.clicked.connect(self.dismiss)
        self.hide()

    @property
    def current(self) -> Notice | None:
        return self.queue[-1] if self.queue else None

    def post(self, notice: Notice) -> None:
        self.queue.append(notice)
        self._show()

    def _show(self) -> None:
        notice = self.current
        if notice is None:
            self.hide()
            return
        more = f"  (+{len(self.queue) - 1} more)" if len(self.queue) > 1 else ""
        self.text.setText(notice.text + more)
        self.undo_button.setVisible(notice.undo is not None)
        self.undo_button.setText(notice.undo_label or "Undo")
        self.undo_button.setEnabled(True)
        self.show()

    def dismiss(self) -> None:
        if self.queue:
            self.queue.pop()
        self._show()

    def review(self) -> None:
        notice = self.current
        if notice is not None and self.ctx.navigate is not None:
            self.ctx.navigate(notice.review)
        self.dismiss()

    def undo(self) -> None:
        notice = self.current
        if notice is None or notice.undo is None:
            return
        self.undo_button.setEnabled(False)

        def done(_result: Any) -> None:
            if notice in self.queue:
                self.queue.remove(notice)
            self._show()

        def failed(exc: BaseException) -> None:
            self.undo_button.setEnabled(True)
            self.text.setText(f"{notice.text}  Undo failed: {getattr(exc, 'message', exc)}")

        MutateOp(
            parent=self, op=notice.undo, changes=notice.undo_changes, events=self.ctx.events, success=done
        ).failure(failed).run_in_background()


def install_notices(window: Any) -> ChangeWatcher | None:
    """Put the notice bar in the window's status bar and start watching; `ctx.notices` is the watcher."""
    ctx = window.ctx
    if getattr(ctx.services, "db", None) is None or getattr(ctx.services, "settings", None) is None:
        return None
    bar = NoticeBar(ctx)
    window.statusBar().addWidget(bar, 1)
    window.notice_bar = bar
    backlog = BacklogLabel()
    window.statusBar().addPermanentWidget(backlog)
    window.backlog_label = backlog
    watcher = ChangeWatcher(ctx, bar.post, window, on_backlog=backlog.update_status)
    ctx.notices = watcher
    return watcher
