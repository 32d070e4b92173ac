"""Feature jobs register on a real APScheduler scheduler through one function."""

from __future__ import annotations

from apscheduler.schedulers.background import BackgroundScheduler

from app.services.scheduling import JOB_HOOKS, register_jobs


def test_registers_the_jobs_of_every_present_feature(services):
    scheduler = BackgroundScheduler(job_defaults={"max_instances": 1, "coalesce": True})
    ids = register_jobs(scheduler, services)
    present = [n for n in JOB_HOOKS if callable(getattr(getattr(services, n, None), "schedule", None))]
    # Each present feature with a schedule hook contributes at least one job; memory alone has none.
    assert (len(ids) >= len(present)) if present else ids == []
    assert ids == [job.id for job in scheduler.get_jobs()]
