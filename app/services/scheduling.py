"""Background jobs for whichever process hosts the scheduler (the desktop app, or `serve` headless).

Each feature service that has periodic work exposes `schedule(scheduler)`; this module is the one
list of those hooks, so both hosts register the same jobs.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

# Services (attributes of the Services container) whose `schedule(scheduler)` registers their jobs.
JOB_HOOKS = ("forgetting", "connectors", "insights", "knowledge")


def register_jobs(scheduler: Any, services: Any) -> list[str]:
    """Register every feature's jobs on an APScheduler scheduler; returns the scheduled job ids.

    A feature whose registration fails is logged and skipped: one bad schedule must not stop
    the others (or the app) from running.
    """
    for name in JOB_HOOKS:
        hook = getattr(getattr(services, name, None), "schedule", None)
        if not callable(hook):
            continue
        try:
            hook(scheduler)
        except Exception:
            log.exception("could not schedule the %s jobs", name)
    return [job.id for job in scheduler.get_jobs()]
