"""Feature jobs register on a real APScheduler scheduler through one function."""

from __future__ import annotations

from apscheduler.schedulers.background import BackgroundScheduler

from app.services.scheduling import JOB_HOOKS, register_jobs


def test_registers_the_jobs_of_every_present_feature(services):
    scheduler = BackgroundScheduler(job_defaults={"max_instances": 1, "coalesce": True})
    ids = register_jobs(scheduler, services)
    assert ids == [job.id for job in scheduler.get_jobs()]
    hooked = [n for n in JOB_HOOKS if callable(getattr(getattr(services, n, None), "schedule", None))]
    if "forgetting" in hooked:  # the forgetting engine always has its periodic run
        assert any("forget" in i for i in ids)
    if not hooked:  # memory alone schedules nothing
        assert ids == []
