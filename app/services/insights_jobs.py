"""The scheduled insight-generation job, registered on whichever APScheduler the host process runs."""

from __future__ import annotations

import logging
from typing import Any

from app.core.errors import InvalidInput
from app.services.insights_service import InsightsService

log = logging.getLogger(__name__)
JOB_ID = "insights.generate"


def run_generation(service: InsightsService) -> dict[str, Any]:
    """One incremental run: only conversations with new messages are analysed; ranks are refreshed."""
    report = service.generate()
    log.info("insight generation: %s", report.to_dict())
    for notice in report.notices:  # e.g. the daily LLM cap: rules stood in, and the log says so
        log.warning("insight generation: %s", notice)
    return report.to_dict()


def register_insights_job(scheduler: Any, service: InsightsService, *, minutes: int = 60) -> Any:
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
        id=JOB_ID,
        name="Generate insights from new messages",
        max_instances=1,
        coalesce=True,
        replace_existing=True,
    )
