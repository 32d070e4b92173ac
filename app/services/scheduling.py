"""Background jobs for whichever process hosts the scheduler (the desktop app, or `serve` headless).

This module is the one list of periodic work, so both hosts run the same jobs: forgetting cycles,
connector syncs (plus live gateway listeners), insight generation, the memory-files refresh and the
index repair (the only automatic repair: opening the data dir never does it, so read commands stay
fast).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler

from app.services.insights_jobs import register_insights_job

log = logging.getLogger(__name__)

BACKLOG_JOB_ID = "embedding-backlog"


def register_jobs(scheduler: Any, services: Any) -> list[str]:
    """Register every feature's jobs on an APScheduler scheduler; returns the scheduled job ids.

    A feature whose registration fails is logged and skipped: one bad schedule must not stop
    the others (or the app) from running.
    """
    hooks = (
        ("forgetting", lambda: services.forgetting.schedule(scheduler)),
        ("index", lambda: services.index.schedule(scheduler)),
        ("reembed", lambda: services.reembed.schedule(scheduler)),
        # Messages stored but not embedded (an import cut short, or one made by the CLI with
        # --no-wait): this process's backlog worker embeds them, beside everything else.
        (
            "embedding backlog",
            lambda: scheduler.add_job(
                services.processor.backlog.notify,
                "date",
                id=BACKLOG_JOB_ID,
                replace_existing=True,
                max_instances=1,
                coalesce=True,
                # A few seconds after start-up, like the repair: opening the app never waits for it.
                run_date=datetime.now(UTC) + timedelta(seconds=5),
            ),
        ),
        ("connectors", lambda: services.connectors and services.connectors.schedule(scheduler)),
        ("memory files", lambda: services.files.schedule(scheduler)),
        (
            "insights",
            lambda: register_insights_job(
                scheduler, services.insights, minutes=services.settings.insights.schedule_minutes
            ),
        ),
    )
    for name, hook in hooks:
        try:
            hook()
        except Exception:
            log.exception("could not schedule the %s jobs", name)
    return [job.id for job in scheduler.get_jobs()]


class JobHost:
    """Owns the scheduler and live connector listeners of one process."""

    def __init__(self, services: Any) -> None:
        self.services = services
        self.scheduler: Any = None

    def start(self) -> list[str]:
        self.scheduler = BackgroundScheduler(daemon=True)
        job_ids = register_jobs(self.scheduler, self.services)
        self.scheduler.start()
        if self.services.connectors is not None:
            try:
                self.services.connectors.start_live()
            except Exception:
                log.exception("could not start live connectors")
        return job_ids

    def stop(self) -> None:
        if self.services.connectors is not None:
            self.services.connectors.stop_live()
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
