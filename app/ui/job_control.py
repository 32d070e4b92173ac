"""Scheduled jobs as people read them: plain names, "every 60 min", paused state kept per data dir.

The paused job ids are kept by `app.services.paused_jobs` and applied by every scheduler host
(the desktop app and `strata serve`) when it starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

# Job ids (app.services.*, forgetting.schedule) → what they do, in the user's words. Plain strings so
# the window module imports no service; tests/services/test_scheduling.py keeps them in step.
LABELS = {
    "forgetting": "Tidy old messages into summaries",
    "insights.generate": "Find insights in new messages",
    "memory-files-refresh": "Refresh the memory files",
    "index-repair": "Check and repair the search index",
    "index-reembed": "Re-embed after a model change",
    "index-vectors": "Index a large archive for search",
    "keyword-reindex": "Update old messages' keyword entries",
}
CONNECTOR_PREFIX = "connector-sync:"
# Jobs whose interval is a setting: job id → (settings.toml table, key).
INTERVAL_SETTINGS = {
    "forgetting": ("forgetting", "interval_minutes"),
    "insights.generate": ("insights", "schedule_minutes"),
    "memory-files-refresh": ("files", "schedule_minutes"),
}
# Internal plumbing the user has no reason to pause (proves the host is alive between runs).
# The embedding backlog's start-up kick runs once; the backlog itself shows in the status bar.
# The vector file's upkeep (a version read a minute) follows the index job's lease and needs no say.
# The page warm-up runs once at start-up (a large archive's search files read into the page cache).
HIDDEN = frozenset(
    {"forgetting-heartbeat", "memory-trim", "embedding-backlog", "vector-files", "page-warm-up"}
)


@dataclass(frozen=True, slots=True)
class JobRow:
    id: str
    label: str
    schedule: str
    next_run: datetime | None
    paused: bool
    minutes: int | None = None  # the interval, when the user can change it (INTERVAL_SETTINGS)


def label_for(job_id: str, name: str = "") -> str:
    if job_id in LABELS:
        return LABELS[job_id]
    if job_id.startswith(CONNECTOR_PREFIX):
        return f"Sync the {job_id[len(CONNECTOR_PREFIX) :]} connector"
    return name or job_id


def schedule_text(trigger: Any) -> str:
    """'every 60 min', 'every 2 h', 'every 30 s' for interval triggers; the trigger's text otherwise."""
    interval = getattr(trigger, "interval", None)
    if isinstance(interval, timedelta):
        seconds = int(interval.total_seconds())
        if seconds % 3600 == 0 and seconds >= 7200:
            return f"every {seconds // 3600} h"
        if seconds % 60 == 0:
            return f"every {seconds // 60} min"
        return f"every {seconds} s"
    if hasattr(trigger, "run_date"):  # a one-off run (DateTrigger): its date is in "Next run"
        return "once"
    return str(trigger)


def job_rows(scheduler: Any, paused: set[str]) -> list[JobRow]:
    rows = []
    for job in scheduler.get_jobs():
        if job.id in HIDDEN:
            continue
        next_run = getattr(job, "next_run_time", None)
        rows.append(
            JobRow(
                id=job.id,
                label=label_for(job.id, job.name),
                schedule=schedule_text(job.trigger),
                next_run=next_run,
                paused=job.id in paused or next_run is None,
                minutes=_minutes(job.trigger) if job.id in INTERVAL_SETTINGS else None,
            )
        )
    return sorted(rows, key=lambda r: r.label.lower())


def _minutes(trigger: Any) -> int | None:
    interval = getattr(trigger, "interval", None)
    return int(interval.total_seconds() // 60) if isinstance(interval, timedelta) else None
