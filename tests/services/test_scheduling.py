"""The scheduler host registers every feature's periodic job exactly once."""

from apscheduler.schedulers.background import BackgroundScheduler

from app.bootstrap import Services
from app.services.paused_jobs import PausedJobs
from app.services.scheduling import MEMORY_TRIM_JOB, JobHost, register_jobs
from app.ui.job_control import CONNECTOR_PREFIX, HIDDEN, LABELS


def test_register_jobs_covers_forgetting_and_insights(services: Services) -> None:
    scheduler = BackgroundScheduler()
    ids = register_jobs(scheduler, services)
    assert "insights.generate" in ids
    assert any("forget" in job_id for job_id in ids)
    assert "index-repair" in ids  # the only automatic repair, off every request path
    assert "index-vectors" in ids  # large archives' approximate index, off every request path
    assert "vector-files" in ids  # large archives' memory-mapped vectors, rebuilt after compactions
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


def test_jobs_paused_in_the_app_stay_paused_in_every_host(services: Services) -> None:
    # The desktop app's Settings wrote the pause; `strata serve` runs the same JobHost.
    PausedJobs(services.settings.layout.root).save({"insights.generate", "no-longer-a-job"})
    host = JobHost(services)
    try:
        host.start()
        assert host.scheduler.get_job("insights.generate").next_run_time is None
        assert host.scheduler.get_job("forgetting").next_run_time is not None
    finally:
        host.stop()


def test_every_job_a_person_sees_has_a_plain_name(services: Services) -> None:
    # A renamed job id would otherwise show as its raw id in Settings, silently.
    scheduler = BackgroundScheduler()
    ids = set(register_jobs(scheduler, services)) | {MEMORY_TRIM_JOB}
    shown = {i for i in ids if i not in HIDDEN and not i.startswith(CONNECTOR_PREFIX)}
    assert shown <= set(LABELS), shown - set(LABELS)
    assert set(LABELS) <= ids, set(LABELS) - ids  # no label left behind for a job that is gone
