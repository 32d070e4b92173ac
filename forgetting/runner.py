"""One forgetting cycle for one user: lock → scan → plan → summarize → apply → refresh vectors; and undo."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.core.clock import Clock, FixedClock
from app.core.domain import Tier
from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.processor import Processor
from app.core.storage import audit
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import vector_key
from app.core.storage.models import MemorySummaryRow, RawMessageRow
from forgetting import runs as r
from forgetting import store
from forgetting.applier import ACTOR, SUMMARY_KIND, Applier
from forgetting.config import ForgetConfig
from forgetting.lock import LockLost, UserLock
from forgetting.models import ForgetRunItemRow, ForgetRunRow
from forgetting.planner import ForgetPlan, GroupPlan, TierCounts, plan
from forgetting.summarizer import Summarizer, SummaryDraft
from forgetting.summary_index import SummaryIndex

log = logging.getLogger(__name__)
# Errors that still leave a complete run: the rule-based summary stood in for the LLM's.
FALLBACK_KINDS = ("summarizer_fallback", "llm_cap_reached")


class ForgetRunner:
    """Runs and undoes forgetting cycles over one data dir."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        processor: Processor,
        summaries: SummaryIndex,
        *,
        config: ForgetConfig | None = None,
        keywords: KeywordIndex | None = None,
        llm_summarizer: Callable[[], Summarizer | None] | None = None,
        before_group: Callable[[GroupPlan], None] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.processor = processor
        self.summaries = summaries
        self.config = config or ForgetConfig()
        self.keywords = keywords or KeywordIndex()
        self.llm_summarizer = llm_summarizer
        self.before_group = before_group
        # Derived data of messages that lives outside this feature (the sentence keys): told of
        # archived message ids after a run and of restored ones after an undo.
        self.archive_hooks: list[Callable[[list[int]], None]] = []
        self.restore_hooks: list[Callable[[list[int]], None]] = []

    # -- plan ---------------------------------------------------------------------------------
    def preview(self, user_id: str, *, include_undone: bool = False) -> ForgetPlan:
        """The plan a run would apply now (rule-based summaries); changes nothing.

        Records of undone runs stay out unless `include_undone` (the user asks to forget them).
        """
        now = self.clock.now_ms()
        records = []
        left_out: dict[Tier, tuple[int, int]] = {}
        with self.db.read() as session:
            for rule in self.config.rules:
                scan = store.scan_candidates(
                    session, user_id, rule, self.config, now, include_undone=include_undone
                )
                records.extend(scan.records)
                left_out[rule.source] = (scan.skipped, scan.deferred)
        return plan(records, FixedClock(now), self.config, user_id=user_id).with_scan_counts(left_out)

    # -- run ----------------------------------------------------------------------------------
    def run(
        self, user_id: str, *, dry_run: bool = False, trigger: str = "manual", include_undone: bool = False
    ) -> r.RunReport:
        started = self.clock.now_ms()
        if dry_run:
            preview = self.preview(user_id, include_undone=include_undone)
            return r.RunReport(
                None,
                user_id,
                r.DRY_RUN,
                True,
                trigger,
                started,
                self.clock.now_ms(),
                preview.tiers,
                tuple(e.to_dict() for e in preview.errors),
                tuple(g.summary_id for g in preview.groups),
                extra={"groups": [g.to_dict(details=False) for g in preview.groups]},
            )
        run_id = r.new_run_id(started)
        lock = UserLock(self.db, self.clock, user_id)
        if not lock.acquire():
            report = r.RunReport(
                run_id,
                user_id,
                r.SKIPPED_LOCKED,
                False,
                trigger,
                started,
                started,
                message="another forgetting run holds the lock for this user",
            )
            self._save(report)
            return report
        try:
            self._start(run_id, user_id, trigger, started, lock.token)
            # Rows whose tier changed wait for new vectors: tell other processes' repair so.
            with self.processor.corpus.writing(), self.summaries.corpus.writing():
                return self._run_locked(run_id, user_id, trigger, started, lock, include_undone)
        finally:
            lock.release()

    def _run_locked(
        self,
        run_id: str,
        user_id: str,
        trigger: str,
        started: int,
        lock: UserLock,
        include_undone: bool = False,
    ) -> r.RunReport:
        status, message = r.COMPLETED, ""
        errors: list[dict[str, object]] = []
        tiers: tuple[TierCounts, ...] = ()
        applied: list[str] = []
        try:
            self.summaries.embed_pending(user_id)  # heal summaries a crash left without vectors
            current = self.preview(user_id, include_undone=include_undone)
            errors += [e.to_dict() for e in current.errors]
            current = self._llm_drafts(current, errors)
            result = Applier(
                self.db,
                self.clock,
                run_id=run_id,
                lock=lock,
                keywords=self.keywords,
                before_group=self.before_group,
            ).apply(current)
            applied = result.applied
            errors += [{**e.to_dict(), "kind": "group_failed"} for e in result.errors]
            tiers = tuple(
                replace(
                    t,
                    promoted=result.promoted_by_tier.get(t.tier, 0),
                    archived=result.archived_by_tier.get(t.tier, 0),
                    summarized=result.summarized_by_tier.get(t.tier, 0),
                    failed=t.failed
                    + sum(1 for e in result.errors if _tier_of(current, e.summary_id) is t.tier),
                )
                for t in current.tiers
            )
            self._refresh_vectors(result.promoted_ids, result.archived_ids, applied)
            if any(e.get("kind") not in FALLBACK_KINDS for e in errors):
                status = r.COMPLETED_WITH_ERRORS
            if any(e.get("kind") == "llm_cap_reached" for e in errors):
                message = "LLM cap reached: rule-based summaries were used (see `strata llm usage`)"
        except LockLost as exc:
            status, message = r.LOCK_LOST, str(exc)
        except Exception as exc:
            log.exception("forgetting run %s failed", run_id)
            status, message = r.FAILED, f"{type(exc).__name__}: {exc}"
        report = r.RunReport(
            run_id,
            user_id,
            status,
            False,
            trigger,
            started,
            self.clock.now_ms(),
            tiers,
            tuple(errors),
            tuple(applied),
            message,
        )
        self._save(report)
        return report

    def _llm_drafts(self, current: ForgetPlan, errors: list[dict[str, object]]) -> ForgetPlan:
        summarizer = self.llm_summarizer() if self.llm_summarizer else None
        if summarizer is None or not current.groups:
            return current
        drafts: dict[str, SummaryDraft] = {}
        for group in current.groups:
            try:
                draft = summarizer.summarize(group.records)
            except Exception as exc:  # the rule-based draft from the plan stays
                draft = replace(group.draft, note=f"llm summarizer raised {type(exc).__name__}: {exc}")
            if draft.note:
                errors.append(
                    {"summaryId": group.summary_id, "kind": "summarizer_fallback", "reason": draft.note}
                )
            drafts[group.summary_id] = draft
        cap = getattr(summarizer, "cap_reached", None)
        if cap:
            # Announced once per run (job status, CLI, UI), not only in each group's note.
            errors.append({"kind": "llm_cap_reached", "reason": cap})
        return current.with_drafts(drafts)

    def _refresh_vectors(self, promoted: list[int], archived: list[int], summary_ids: list[str]) -> None:
        """After the commits: new Tier lines need new vectors; archived rows get their flag in LanceDB."""
        if promoted:
            self.processor.reembed(promoted)
        self.processor.corpus.set_columns([vector_key(i) for i in archived], {"archived": True})
        self.summaries.embed(summary_ids)
        _call_hooks(self.archive_hooks, archived)

    # -- runs table ---------------------------------------------------------------------------
    def _start(self, run_id: str, user_id: str, trigger: str, started: int, token: str | None) -> None:
        def work(session: Session) -> None:
            # We hold the lock, so any other "running" run of this user died (crash, kill -9).
            session.execute(
                update(ForgetRunRow)
                .where(ForgetRunRow.user_id == user_id, ForgetRunRow.status == r.RUNNING)
                .values(status=r.INTERRUPTED, message="the process stopped before the run finished")
            )
            session.add(
                ForgetRunRow(
                    run_id=run_id,
                    user_id=user_id,
                    trigger=trigger,
                    dry_run=False,
                    status=r.RUNNING,
                    started_at=started,
                    lock_token=token,
                    counts=[],
                    errors=[],
                    summary_ids=[],
                    message="",
                )
            )

        self.db.write_with_retry(work)

    def save(self, report: r.RunReport) -> None:
        """Store a report the runner did not make itself (a plan waiting for the user)."""
        self._save(report)

    def _save(self, report: r.RunReport) -> None:
        def work(session: Session) -> None:
            row = session.get(ForgetRunRow, report.run_id)
            if row is None:
                row = ForgetRunRow(run_id=report.run_id, user_id=report.user_id, started_at=report.started_at)
                session.add(row)
            row.trigger = report.trigger
            row.dry_run = report.dry_run
            row.status = report.status
            row.finished_at = report.finished_at
            row.counts = [t.to_dict() for t in report.tiers]
            row.errors = list(report.errors)
            row.summary_ids = list(report.summary_ids)
            row.message = report.message

        self.db.write_with_retry(work)

    # -- undo ---------------------------------------------------------------------------------
    def undo(self, run_id: str) -> r.UndoReport:
        """Restore a run's archives and tiers, relink records, and delete the summaries it wrote."""
        with self.db.read() as session:
            run = session.get(ForgetRunRow, run_id)
            if run is None:
                raise NotFound(
                    f"no forgetting run {run_id!r}", hint="`strata forget status` lists recent runs"
                )
            if run.undone_at is not None:
                return r.UndoReport(run_id, "already_undone", message="this run was already undone")
            items = store.run_items(session, run_id)
            if not items and run.status in (
                r.SKIPPED_LOCKED,
                r.DRY_RUN,
                r.AWAITING,
                r.DISMISSED,
                r.CONFIRMED,
            ):
                raise InvalidInput(f"run {run_id} changed nothing ({run.status}); there is nothing to undo")
            blocking = store.later_runs_touching(session, run, items)
            user_id = run.user_id
        if blocking:
            raise Conflict(
                f"later runs changed the same records: {', '.join(blocking)}",
                hint="undo those runs first (newest first), then this one",
            )
        lock = UserLock(self.db, self.clock, user_id)
        if not lock.acquire():
            return r.UndoReport(
                run_id, r.SKIPPED_LOCKED, message="a forgetting run holds the lock; try again"
            )
        try:
            return self._undo_locked(run_id, user_id, items, lock)
        finally:
            lock.release()

    def _undo_locked(
        self, run_id: str, user_id: str, items: list[ForgetRunItemRow], lock: UserLock
    ) -> r.UndoReport:
        by_summary: dict[str, list[ForgetRunItemRow]] = {}
        for item in items:
            by_summary.setdefault(item.summary_id, []).append(item)
        restored = unarchived = 0
        reembed: list[int] = []
        for sid, group in by_summary.items():

            def work(
                session: Session, sid: str = sid, group: list[ForgetRunItemRow] = group
            ) -> tuple[int, int]:
                lock.check(session)
                now = self.clock.now_ms()
                rows = {
                    row.id: row
                    for row in session.query(RawMessageRow).filter(
                        RawMessageRow.id.in_([i.record_id for i in group])
                    )
                }
                back = unarch = 0
                for item in group:
                    row = rows.get(item.record_id)
                    if row is None:
                        continue  # deleted since: nothing to restore
                    if row.memory_stage != item.prev_stage:
                        row.memory_stage = item.prev_stage
                        row.embedding_content_hash = None
                    if item.action == "archive" and row.archived_at is not None:
                        row.archived_at = None
                        unarch += 1
                    if row.summary_ref_id == sid:
                        row.summary_ref_id = item.prev_summary_ref_id
                    back += 1
                summary = session.get(MemorySummaryRow, sid)
                if summary is not None:
                    session.delete(summary)
                self.keywords.delete(session, SUMMARY_KIND, [sid])
                audit.record(
                    session,
                    user_id=user_id,
                    at=now,
                    actor=ACTOR,
                    action="forget_undo",
                    entity_type="memory_summary",
                    entity_id=sid,
                    details={"runId": run_id, "records": [i.record_id for i in group]},
                )
                return back, unarch

            back, unarch = self.db.write_with_retry(work)
            restored += back
            unarchived += unarch
            reembed.extend(i.record_id for i in group)

        def finish(session: Session) -> None:
            row = session.get(ForgetRunRow, run_id)
            if row is not None:
                row.undone_at = self.clock.now_ms()

        self.db.write_with_retry(finish)
        self.summaries.delete_vectors(list(by_summary))
        if reembed:
            self.processor.reembed(sorted(set(reembed)))  # tier lines and archived flags back
            _call_hooks(self.restore_hooks, sorted(set(reembed)))
        return r.UndoReport(run_id, "undone", restored, unarchived, len(by_summary))


def _call_hooks(hooks: list[Callable[[list[int]], None]], message_ids: list[int]) -> None:
    """After the commits: a failing hook leaves derived data for the repair, never fails the run."""
    if not message_ids:
        return
    for hook in hooks:
        try:
            hook(message_ids)
        except Exception:
            log.exception("forgetting: a hook for %d messages failed (repair catches up)", len(message_ids))


def _tier_of(current: ForgetPlan, summary_id: str) -> Tier | None:
    return next((g.source_tier for g in current.groups if g.summary_id == summary_id), None)
