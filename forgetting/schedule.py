"""The periodic forgetting job on an APScheduler 3 scheduler, and its cross-process bookkeeping."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy.orm import Session

from app.core.clock import Clock, datetime_to_ms
from app.core.storage.db import Database
from forgetting.models import ForgetScheduleRow

JOB_ID = "forgetting"
HEARTBEAT_JOB_ID = "forgetting-heartbeat"
# The host checks in this often; one silent for three beats is gone (killed, crashed, asleep).
HEARTBEAT_SECONDS = 60
STALE_AFTER_MS = 3 * HEARTBEAT_SECONDS * 1000


def register(
    scheduler: Any,
    job: Callable[[], object],
    *,
    interval_minutes: int,
    job_id: str = JOB_ID,
    first_run_in_seconds: float | None = None,
) -> Any:
    """Add (or replace) the interval job: one instance at a time, missed runs coalesced into one."""
    trigger = IntervalTrigger(minutes=interval_minutes)
    kwargs: dict[str, Any] = {}
    if first_run_in_seconds is not None:
        kwargs["next_run_time"] = datetime.now(UTC) + timedelta(seconds=first_run_in_seconds)
    return scheduler.add_job(
        job,
        trigger=trigger,
        id=job_id,
        name="Forgetting engine",
        replace_existing=True,
        max_instances=1,
        coalesce=True,
        misfire_grace_time=interval_minutes * 60,
        **kwargs,
    )


def register_heartbeat(scheduler: Any, beat: Callable[[], object]) -> Any:
    """A small job that proves the host is alive between (hourly) forgetting runs."""
    return scheduler.add_job(
        beat,
        trigger=IntervalTrigger(seconds=HEARTBEAT_SECONDS),
        id=HEARTBEAT_JOB_ID,
        name="Forgetting scheduler heartbeat",
        replace_existing=True,
        max_instances=1,
        coalesce=True,
    )


def beat(db: Database, clock: Clock, job_id: str = JOB_ID) -> None:
    """The host is alive: refresh `updated_at` (only for the host that registered the job)."""
    now = clock.now_ms()

    def work(session: Session) -> None:
        row = session.get(ForgetScheduleRow, job_id)
        if row is not None and row.pid == os.getpid() and row.host == socket.gethostname():
            row.updated_at = now

    db.write_with_retry(work)


def process_alive(pid: int) -> bool:
    """Whether a process with this id exists on this computer."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return True


def next_fire_ms(job: Any) -> int | None:
    """The job's next run as Unix ms, also before the scheduler has started."""
    when = getattr(job, "next_run_time", None)
    if when is None:
        trigger = getattr(job, "trigger", None)
        when = trigger.get_next_fire_time(None, datetime.now(UTC)) if trigger is not None else None
    return datetime_to_ms(when) if when is not None else None


def record(
    db: Database,
    clock: Clock,
    *,
    interval_minutes: int,
    next_run_at: int | None,
    last_status: str | None = None,
    ran: bool = False,
    job_id: str = JOB_ID,
) -> None:
    """Note this process as the scheduler host (called at registration and after each run)."""
    now = clock.now_ms()

    def work(session: Session) -> None:
        row = session.get(ForgetScheduleRow, job_id)
        if row is None:
            row = ForgetScheduleRow(job_id=job_id)
            session.add(row)
        row.host = socket.gethostname()
        row.pid = os.getpid()
        row.interval_minutes = interval_minutes
        row.next_run_at = next_run_at
        row.updated_at = now
        if ran:
            row.last_run_at = now
            row.last_status = last_status

    db.write_with_retry(work)


def forget_host(db: Database, job_id: str = JOB_ID) -> None:
    """The host stopped its scheduler: next run unknown until another host registers."""

    def work(session: Session) -> None:
        row = session.get(ForgetScheduleRow, job_id)
        if row is not None:
            row.next_run_at = None
            row.pid = 0

    db.write_with_retry(work)


def describe(db: Database, clock: Clock, job_id: str = JOB_ID) -> dict[str, Any]:
    with db.read() as session:
        row = session.get(ForgetScheduleRow, job_id)
        if row is None:
            return {
                "active": False,
                "host": None,
                "pid": None,
                "nextRunAt": None,
                "lastScheduledRunAt": None,
                "lastScheduledStatus": None,
                "intervalMinutes": None,
            }
        # Alive means: registered, checked in within three heartbeats, and, when the host is this
        # computer, its process still exists (a killed host is noticed at once, not after minutes).
        active = (
            bool(row.pid)
            and row.next_run_at is not None
            and clock.now_ms() - row.updated_at < STALE_AFTER_MS
            and (row.host != socket.gethostname() or process_alive(row.pid))
        )
        return {
            "active": active,
            "host": row.host,
            "pid": row.pid or None,
            "intervalMinutes": row.interval_minutes,
            "nextRunAt": row.next_run_at if active else None,
            "lastScheduledRunAt": row.last_run_at,
            "lastScheduledStatus": row.last_status,
        }
