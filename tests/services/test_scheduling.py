"""The scheduler host registers every feature's periodic job exactly once."""

from apscheduler.schedulers.background import BackgroundScheduler

from app.bootstrap import Services
from app.services.scheduling import JobHost, register_jobs


def test_register_jobs_covers_forgetting_and_insights(services: Services) -> None:
    scheduler = BackgroundScheduler()
    ids = register_jobs(scheduler, services)
    assert "insights.generate" in ids
    assert any("forget" in job_id for job_id in ids)
    assert "index-repair" in ids  # the only automatic repair, off every request path
    assert "index-vectors" in ids  # large archives' approximate index, off every request path
    assert "embedding-backlog" in ids  # rows stored but not embedded are embedded after start-up
    for job in scheduler.get_jobs():
        assert job.max_instances == 1 and job.coalesce


def test_job_host_starts_and_stops(services: Services) -> None:
    host = JobHost(services)
    ids = host.start()
    assert host.scheduler is not None and host.scheduler.running and ids
    host.stop()
    assert host.scheduler is None


def test_job_host_gives_memory_back_after_every_job(services: Services) -> None:
    import threading

    host = JobHost(services)
    ids = host.start()
    ran = threading.Event()
    try:
        assert "memory-trim" in ids and host.last_trim is None
        host.scheduler.add_job(ran.set, id="one-off")  # any job, run now
        assert ran.wait(10)
        for _ in range(100):  # the listener runs right after the job, on the scheduler's thread
            if host.last_trim is not None:
                break
            threading.Event().wait(0.05)
        assert host.last_trim is not None and host.last_trim.rss_after_mb > 0
    finally:
        host.stop()
