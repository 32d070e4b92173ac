"""Forgetting without surprises: a large scheduled run waits for the user instead of applying.

A scheduled run that would archive more than `confirm_above` records is stored as a run with
status `awaiting_confirmation` (nothing applied) that the shells show as a notice: preview it,
run it (a run the user starts always applies), or "not now", which marks it `dismissed` and
pauses scheduled runs for a day. Smaller scheduled runs apply as before.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.core.clock import Clock, iso
from app.core.errors import NotFound
from app.core.storage.db import Database
from forgetting import runs as r
from forgetting import store
from forgetting.models import ForgetRunRow
from forgetting.planner import ForgetPlan
from forgetting.runner import ForgetRunner

# After "not now", scheduled runs rest this long before planning (and possibly asking) again.
SNOOZE_MS = 24 * 3_600_000


def archive_count(plan: ForgetPlan) -> int:
    return sum(t.archived for t in plan.tiers)


class PendingPlans:
    def __init__(self, db: Database, clock: Clock, runner: ForgetRunner, *, confirm_above: int) -> None:
        self.db = db
        self.clock = clock
        self.runner = runner
        self.confirm_above = confirm_above

    def _latest(self, user_id: str) -> ForgetRunRow | None:
        with self.db.read() as session:
            return session.scalars(
                select(ForgetRunRow)
                .where(ForgetRunRow.user_id == user_id)
                .order_by(ForgetRunRow.started_at.desc(), ForgetRunRow.run_id.desc())
                .limit(1)
            ).first()

    def run_or_wait(self, user_id: str, *, trigger: str = "schedule") -> r.RunReport:
        """The scheduled job's step for one user: apply a small plan, park a large one."""
        now = self.clock.now_ms()
        latest = self._latest(user_id)
        if (
            latest is not None
            and latest.status == r.DISMISSED
            and (latest.finished_at or 0) > now - SNOOZE_MS
        ):
            return r.RunReport(
                None,
                user_id,
                r.SNOOZED,
                False,
                trigger,
                now,
                now,
                message=f"paused after 'not now' until {iso((latest.finished_at or now) + SNOOZE_MS)}",
            )
        with self.db.read() as session:
            candidates = sum(store.candidate_counts(session, user_id, self.runner.config, now).values())
        if candidates <= self.confirm_above:
            # Cheap bound: a run never archives more than its candidates, so skip the extra plan.
            return self.runner.run(user_id, trigger=trigger)
        plan = self.runner.preview(user_id)
        count = archive_count(plan)
        if count <= self.confirm_above:
            return self.runner.run(user_id, trigger=trigger)  # small: applies, as scheduled runs always did
        # One waiting plan per user: refresh the one already shown instead of adding a row per cycle.
        waiting = latest is not None and latest.status == r.AWAITING
        report = r.RunReport(
            latest.run_id if waiting and latest is not None else r.new_run_id(now),
            user_id,
            r.AWAITING,
            True,
            trigger,
            latest.started_at if waiting and latest is not None else now,
            now,
            plan.tiers,
            summary_ids=tuple(g.summary_id for g in plan.groups),
            message=(
                f"the scheduled run would archive {count} records (more than "
                f"forgetting.confirm_above_records = {self.confirm_above}); nothing was changed. "
                "Preview it (`strata forget run --dry-run`), run it (`strata forget run`), "
                "or say not now (`strata forget dismiss`)"
            ),
        )
        self.runner.save(report)
        return report

    def current(self, user_id: str) -> dict[str, Any] | None:
        """The plan waiting for the user, if the latest run is one; None otherwise."""
        latest = self._latest(user_id)
        if latest is None or latest.status != r.AWAITING:
            return None
        report = r.RunReport.from_row(latest)
        return {
            "runId": report.run_id,
            "since": iso(report.started_at),
            "checkedAt": iso(report.finished_at),
            "archive": sum(t.archived for t in report.tiers),
            "promote": sum(t.promoted for t in report.tiers),
            "summaries": len(report.summary_ids),
            "tiers": [t.to_dict() for t in report.tiers],
            "message": report.message,
        }

    def resolve(self, user_id: str, run_id: str | None) -> None:
        """The user ran forgetting themselves: a waiting plan is answered, its notice goes away."""

        def work(session: Any) -> None:
            for row in session.scalars(
                select(ForgetRunRow).where(ForgetRunRow.user_id == user_id, ForgetRunRow.status == r.AWAITING)
            ):
                row.status = r.CONFIRMED
                row.message = f"run by the user in {run_id}"

        self.db.write_with_retry(work)

    def dismiss(self, user_id: str) -> dict[str, Any]:
        latest = self._latest(user_id)
        if latest is None or latest.status != r.AWAITING:
            raise NotFound("no forgetting plan is waiting", hint="`strata forget status` shows the last run")
        now = self.clock.now_ms()

        def work(session: Any) -> None:
            row = session.get(ForgetRunRow, latest.run_id)
            row.status = r.DISMISSED
            row.finished_at = now
            row.message = "not now: scheduled runs paused for a day"

        self.db.write_with_retry(work)
        return {"runId": latest.run_id, "status": r.DISMISSED, "resumesAt": iso(now + SNOOZE_MS)}
