"""Background jobs for whichever process hosts the scheduler (the desktop app, or `serve` headless).

This module is the one list of periodic work, so both hosts run the same jobs: forgetting cycles,
connector syncs (plus live gateway listeners), insight generation, the memory-files refresh, the
index repair (the only automatic repair: opening the data dir never does it, so read commands stay
fast) and the upkeep of large archives' approximate vector indexes.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED
from apscheduler.schedulers.background import BackgroundScheduler

from app.core import memory_trim
from app.services.idle_release import IdleRelease, release_idle
from app.services.insights_jobs import register_insights_job
from app.services.page_warmup_job import schedule_warm_up
from app.services.paused_jobs import PausedJobs

log = logging.getLogger(__name__)

MEMORY_TRIM_JOB = "memory-trim"
# Searches and imports also leave peaks (a vector-copy reload); a trim costs a few milliseconds.
MEMORY_TRIM_SECONDS = 60
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
        # A large archive's search files read into the page cache once, beside everything else.
        ("page warm-up", lambda: schedule_warm_up(scheduler, services)),
        ("connectors", lambda: services.connectors and services.connectors.schedule(scheduler)),
        ("memory files", lambda: services.files.schedule(scheduler)),
        (
            "insights",
            lambda: register_insights_job(
                scheduler,
                services.insights,
                minutes=services.settings.insights.schedule_minutes,
                max_messages=services.settings.insights.max_messages_per_run,
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
        self.last_trim: memory_trim.Released | None = None
        self.last_idle_release: IdleRelease | None = None

    def start(self) -> list[str]:
        # Before the scheduler's, uvicorn's and ONNX's threads exist: each would get its own arena.
        memory_trim.limit_arenas(2)
        self.scheduler = BackgroundScheduler(daemon=True)
        job_ids = register_jobs(self.scheduler, self.services)
        self.scheduler.add_job(
            self._trim, "interval", seconds=MEMORY_TRIM_SECONDS, id=MEMORY_TRIM_JOB, name="memory trim",
            replace_existing=True, coalesce=True, max_instances=1,
        )  # fmt: skip
        job_ids.append(MEMORY_TRIM_JOB)
        # A forgetting, insights or sync run peaks and frees; give the memory back right after it.
        self.scheduler.add_listener(self._after_job, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        # Jobs the person paused (in the app's Settings) stay paused in every host, `serve` too;
        # paused before the start so none of them gets a first run in between.
        for job_id in self.paused_ids() & set(job_ids):
            self.scheduler.pause_job(job_id)
        self.scheduler.start()
        if self.services.connectors is not None:
            try:
                self.services.connectors.start_live()
            except Exception:
                log.exception("could not start live connectors")
        return job_ids

    def paused_ids(self) -> set[str]:
        return PausedJobs(self.services.settings.layout.root).load()

    def stop(self) -> None:
        if self.services.connectors is not None:
            self.services.connectors.stop_live()
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None

    def _trim(self) -> None:
        # What nobody used for a while (model session, vector copies) goes first, then the trim
        # returns the freed pages to the OS.
        try:
            idle = self.services.settings.resources
            self.last_idle_release = release_idle(
                self.services,
                idle.model_idle_seconds,
                idle.vector_copy_idle_seconds,
                drop_pages=idle.drop_library_pages,
            )
        except Exception:  # a failed release must not stop the trim (or the scheduler)
            log.exception("idle release failed")
        released = memory_trim.release()
        self.last_trim = released
        if released.freed_mb >= 16:
            log.info("returned %.0f MB to the OS (RSS %.0f MB)", released.freed_mb, released.rss_after_mb)

    def _after_job(self, event: Any) -> None:
        if getattr(event, "job_id", None) != MEMORY_TRIM_JOB:
            self._trim()
