"""Forgetting use cases for every shell: preview, run, status, undo, schedule, summaries (get, search)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select

from app.core.clock import Clock, iso
from app.core.domain import SearchHit
from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput, NotFound
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams
from app.core.llm.base import LLM
from app.core.processor import Processor
from app.core.search.message_query import MessageQuery
from app.core.settings import ForgettingSettings, LLMSettings
from app.core.storage.db import Database
from app.core.storage.erasure import ErasedRow
from app.core.storage.keyword import KeywordIndex
from app.core.storage.models import MemorySummaryRow
from app.core.storage.vectors import VectorStore
from forgetting import lock as locks
from forgetting import schedule, store, summaries
from forgetting.config import ForgetConfig, RetentionOverride
from forgetting.llm_summarizer import LLMSummarizer
from forgetting.pending import PendingPlans
from forgetting.planner import ForgetPlan
from forgetting.runner import ForgetRunner
from forgetting.runs import COMPLETED, COMPLETED_WITH_ERRORS, DISABLED, RunReport, UndoReport
from forgetting.source_deletion import SourceDeletion
from forgetting.summaries import StoredSummary
from forgetting.summarizer import Summarizer
from forgetting.summary_index import SummaryIndex

log = logging.getLogger(__name__)

# Builds the guarded LLM when a run needs it (preparing the transport may fail on bad settings).
LLMFactory = Callable[[], LLM]


def config_from_settings(settings: ForgettingSettings) -> ForgetConfig:
    return ForgetConfig(
        max_candidates_per_tier=settings.max_candidates_per_tier,
        retention=tuple(
            RetentionOverride(
                channel=r.channel,
                platform=r.platform,
                keep_forever=r.keep_forever,
                short_to_mid_threshold=r.short_to_mid_threshold,
                mid_to_long_threshold=r.mid_to_long_threshold,
            )
            for r in settings.retention
        ),
    )


class ForgettingService:
    def __init__(
        self,
        db: Database,
        processor: Processor,
        vectors: VectorStore,
        embedder: Embedder,
        clock: Clock,
        *,
        user_id: str,
        settings: ForgettingSettings | None = None,
        llm: LLMSettings | None = None,
        llm_factory: LLMFactory | None = None,
        keywords: KeywordIndex | None = None,
        rrf_k: int = 10,
        leases: WriterLeases | None = None,
        fusion: FusionParams | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.user_id = user_id
        self.settings = settings or ForgettingSettings()
        self.llm = llm or LLMSettings()
        self.llm_factory = llm_factory
        self.config = config_from_settings(self.settings)
        keywords = keywords or KeywordIndex()
        self.summaries = SummaryIndex(
            db, vectors, embedder, clock, keywords=keywords, rrf_k=rrf_k, leases=leases, fusion=fusion
        )
        self.runner = ForgetRunner(
            db,
            clock,
            processor,
            self.summaries,
            config=self.config,
            keywords=keywords,
            llm_summarizer=self._llm_summarizer,
        )
        self._job: Any = None
        self.source_deletion = SourceDeletion(db, clock, self.summaries, keywords=keywords)
        self.pending = PendingPlans(db, clock, self.runner, confirm_above=self.settings.confirm_above_records)

    # -- use cases ----------------------------------------------------------------------------
    def preview(self, user_id: str | None = None, *, include_undone: bool = False) -> ForgetPlan:
        return self.runner.preview(user_id or self.user_id, include_undone=include_undone)

    def run(
        self,
        user_id: str | None = None,
        *,
        dry_run: bool = False,
        trigger: str = "manual",
        include_undone: bool = False,
    ) -> RunReport:
        """Run now; the user starting it is the confirmation, so no threshold applies."""
        user = user_id or self.user_id
        report = self.runner.run(user, dry_run=dry_run, trigger=trigger, include_undone=include_undone)
        if not dry_run and report.status in (COMPLETED, COMPLETED_WITH_ERRORS):
            self.pending.resolve(user, report.run_id)
        return report

    def run_all(self, *, trigger: str = "schedule") -> list[RunReport]:
        """One run per user that has messages (the scheduled job)."""
        if not self.settings.enabled:
            now = self.clock.now_ms()
            return [
                RunReport(
                    None,
                    self.user_id,
                    DISABLED,
                    False,
                    trigger,
                    now,
                    now,
                    message="forgetting is disabled in settings ([forgetting] enabled = false)",
                )
            ]
        with self.db.read() as session:
            users = store.user_ids(session) or [self.user_id]
        return [self.pending.run_or_wait(u, trigger=trigger) for u in users]

    def dismiss_pending(self, user_id: str | None = None) -> dict[str, Any]:
        """ "Not now": hide the waiting plan and pause scheduled runs for a day."""
        return self.pending.dismiss(user_id or self.user_id)

    def undo(self, run_id: str) -> UndoReport:
        if not run_id or not run_id.strip():
            raise InvalidInput("a run id is needed", hint="`strata forget status` lists recent runs")
        return self.runner.undo(run_id.strip())

    def runs(self, user_id: str | None = None, limit: int = 10) -> list[RunReport]:
        with self.db.read() as session:
            return [RunReport.from_row(r) for r in store.last_runs(session, user_id or self.user_id, limit)]

    def status(self, user_id: str | None = None) -> dict[str, Any]:
        user = user_id or self.user_id
        now = self.clock.now_ms()
        recent = self.runs(user, limit=5)
        with self.db.read() as session:
            pending = store.candidate_counts(session, user, self.config, now)
            summaries = session.scalar(
                select(func.count()).select_from(MemorySummaryRow).where(MemorySummaryRow.user_id == user)
            )
        held = locks.current(self.db, user)
        sched = schedule.describe(self.db, self.clock)
        return {
            "userId": user,
            "enabled": self.settings.enabled,
            "intervalMinutes": self.settings.interval_minutes,
            "llmSummaries": bool(self.settings.use_llm and self._llm_configured()),
            "scheduler": {
                **sched,
                "nextRunAt": iso(sched["nextRunAt"]),
                "lastScheduledRunAt": iso(sched["lastScheduledRunAt"]),
            },
            "nextRun": iso(sched["nextRunAt"]),
            "lastRun": recent[0].to_dict() if recent else None,
            "recentRuns": [r.to_dict() for r in recent],
            "lock": ({**held.to_dict(), "active": held.expires_at > now} if held else None),
            "pendingCandidates": pending,
            "pendingPlan": self.pending.current(user),
            "confirmAboveRecords": self.settings.confirm_above_records,
            "summaries": int(summaries or 0),
        }

    def on_messages_deleted(self, user_id: str, erased: list[ErasedRow]) -> dict[str, int]:
        """Deletion hook: summaries quoting deleted messages are regenerated without them (or removed)."""
        return self.source_deletion.apply(user_id, erased).counts()

    def summary(self, summary_id: str, user_id: str | None = None) -> StoredSummary:
        """The summary that replaced a group of archived messages (a record's `summary_ref_id`)."""
        if not summary_id or not summary_id.strip():
            raise InvalidInput("a summary id is needed", hint="archived messages carry it as summary_ref_id")
        with self.db.read() as session:
            found = summaries.load(session, user_id or self.user_id, summary_id.strip())
        if found is None:
            raise NotFound(
                f"no summary with id {summary_id!r}",
                hint="it may have been removed by undoing its forgetting run (`strata forget status`)",
            )
        return found

    def search_summaries(self, query: MessageQuery) -> list[SearchHit]:
        """Fallback hit source for memory search when raw hits are few (minRawResultsWithoutFallback)."""
        return self.summaries.search(query.user_id, query.text, query.filters, query.limit)

    # -- schedule -----------------------------------------------------------------------------
    def schedule(self, scheduler: Any, *, first_run_in_seconds: float | None = 60) -> Any:
        """Register the hourly (configurable) job on the host's APScheduler; None when disabled."""
        if not self.settings.enabled:
            return None
        self._job = schedule.register(
            scheduler,
            self.run_scheduled,
            interval_minutes=self.settings.interval_minutes,
            first_run_in_seconds=first_run_in_seconds,
        )
        schedule.register_heartbeat(scheduler, self.heartbeat)
        schedule.record(
            self.db,
            self.clock,
            interval_minutes=self.settings.interval_minutes,
            next_run_at=schedule.next_fire_ms(self._job),
        )
        return self._job

    def heartbeat(self) -> None:
        try:
            schedule.beat(self.db, self.clock)
        except Exception:  # a busy database must not kill the scheduler thread; the next beat retries
            log.exception("forgetting scheduler heartbeat failed")

    def unschedule(self) -> None:
        if self._job is not None:
            schedule.forget_host(self.db)
            self._job = None

    def run_scheduled(self) -> list[RunReport]:
        reports: list[RunReport] = []
        try:
            reports = self.run_all(trigger="schedule")
        except Exception:  # the scheduler thread must survive a bad cycle; the next one retries
            log.exception("scheduled forgetting run failed")
        status = ",".join(sorted({r.status for r in reports})) or "failed"
        # Not scheduler.get_job(): it takes the job-store lock that shutdown() holds while waiting
        # for this very job, a deadlock. An interval job's next run is one interval from now.
        next_at = self.clock.now_ms() + self.settings.interval_minutes * 60_000
        schedule.record(
            self.db,
            self.clock,
            interval_minutes=self.settings.interval_minutes,
            next_run_at=next_at,
            last_status=status[:32],
            ran=True,
        )
        return reports

    # -- LLM ----------------------------------------------------------------------------------
    def _llm_configured(self) -> bool:
        return self.llm_factory is not None

    def _llm_summarizer(self) -> Summarizer | None:
        if not (self.settings.use_llm and self.llm_factory is not None):
            return None
        try:
            llm = self.llm_factory()
        except Exception as exc:  # a broken LLM config falls back to rules, reported in the log
            log.warning("LLM client unavailable, using rule-based summaries: %s", exc)
            return None
        return LLMSummarizer(llm, max_key_points=self.config.max_key_points)
