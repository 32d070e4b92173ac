"""The scheduled insight-generation job, registered on whichever APScheduler the host process runs."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from app.core.errors import InvalidInput
from app.services.insights_service import InsightsService

log = logging.getLogger(__name__)
JOB_ID = "insights.generate"
# A run that stopped at its message budget is followed by another this much later (not at once:
# searches, imports and the idle release get the cores and the memory in between).
CATCH_UP_SECONDS = 60


def run_generation(
    service: InsightsService, limit: int | None = None, scheduler: Any = None
) -> dict[str, Any]:
    """One incremental run of at most `limit` new messages; ranks are refreshed.

    With messages left over (a large import), the job is brought forward to run again in
    `CATCH_UP_SECONDS`, until the backlog is done; then it keeps its interval.
    """
    report = service.generate(limit=limit)
    log.info("insight generation: %s", report.to_dict())
    for notice in report.notices:  # e.g. the daily LLM cap: rules stood in, and the log says so
        log.warning("insight generation: %s", notice)
    if report.pending and scheduler is not None:
        catch_up(scheduler)
    return report.to_dict()


def catch_up(scheduler: Any, seconds: float = CATCH_UP_SECONDS) -> bool:
    """Bring the job's next run forward to `seconds` from now; False if paused, gone or sooner."""
    job = scheduler.get_job(JOB_ID)
    if job is None or job.next_run_time is None:  # paused by the person: that choice stands
        return False
    at = datetime.now(job.next_run_time.tzinfo) + timedelta(seconds=seconds)
    if at >= job.next_run_time:
        return False
    job.modify(next_run_time=at)
    return True


def register_insights_job(
    scheduler: Any, service: InsightsService, *, minutes: int = 60, max_messages: int | None = None
) -> Any:
    """Add (or replace) the interval job; one run at a time, missed runs coalesce into one."""
    if minutes < 1:
        raise InvalidInput(
            f"insight generation interval must be at least 1 minute, got {minutes}",
            hint="set insights.schedule_minutes to 1 or more",
        )
    return scheduler.add_job(
        run_generation,
        trigger="interval",
        minutes=minutes,
        args=[service],
        kwargs={"limit": max_messages, "scheduler": scheduler},
        id=JOB_ID,
        name="Generate insights from new messages",
        max_instances=1,
        coalesce=True,
        replace_existing=True,
    )
