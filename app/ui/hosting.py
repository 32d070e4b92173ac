"""What the desktop app hosts besides the window: the REST/MCP server and the job scheduler."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from app.core.errors import ConfigError, InvalidInput
from app.services.paused_jobs import PausedJobs
from app.ui.job_control import INTERVAL_SETTINGS, JobRow, job_rows
from app.ui.settings_file import update_settings_file

log = logging.getLogger(__name__)


class ApiServerHost:
    """Runs the REST + MCP app under uvicorn on a daemon thread; toggled from Settings.

    FastAPI, uvicorn and the MCP SDK are imported on first start, never at window start-up.
    """

    def __init__(self, services: Any) -> None:
        self.services = services
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port: int | None = None
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, port: int, *, timeout: float = 15.0) -> int:
        """Start serving on 127.0.0.1:`port`; blocks (off the GUI thread) until it accepts requests."""
        if self.running:
            if self.port == port:
                return port
            self.stop()
        import uvicorn

        from app.api.app import create_app
        from app.api.server import uvicorn_config

        host = self.services.settings.api.host
        config = uvicorn_config(create_app(self.services), host, port)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="strata-api", daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not thread.is_alive():
                raise ConfigError(
                    f"the API server could not listen on {host}:{port}",
                    hint="another program may use that port; pick another one in Settings",
                )
            if time.monotonic() > deadline:
                server.should_exit = True
                raise ConfigError(f"the API server did not start within {timeout:.0f} s")
            time.sleep(0.02)
        self._server, self._thread, self.port, self.error = server, thread, port, None
        return port

    def stop(self, timeout: float = 8.0) -> None:
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.should_exit = True
        thread.join(timeout)
        self._server, self._thread, self.port = None, None, None


class SchedulerHost:
    """The app's scheduler: `app.services.scheduling.JobHost` (the same jobs `serve` runs).

    APScheduler runs in its own thread and never touches Qt; views hear about job results
    through core change events. Live connector listeners start and stop with it.
    """

    def __init__(self, services: Any) -> None:
        # The jobs pull in every feature (LanceDB, openai, …): imported with the services, after
        # the window is up, never when the window module loads.
        from app.services.scheduling import JobHost

        self.host = JobHost(services)
        self.settings_file = services.settings.layout.settings_file
        self.paused = PausedJobs(services.settings.layout.root)

    @property
    def scheduler(self) -> Any:
        return self.host.scheduler

    def start(self) -> list[str]:
        return self.host.start()  # applies the jobs the user paused (kept across restarts)

    def job_rows(self) -> list[JobRow]:
        """The user-facing list for Settings: plain names, schedule, next run, paused or not."""
        if self.scheduler is None:
            return []
        return job_rows(self.scheduler, self.paused.load())

    def set_interval(self, job_id: str, minutes: int) -> None:
        """Run `job_id` every `minutes` from now on, and write it to settings.toml for next starts."""
        if job_id not in INTERVAL_SETTINGS:
            raise InvalidInput(f"the {job_id!r} job has a fixed schedule")
        if not 1 <= minutes <= 7 * 24 * 60:
            raise InvalidInput(f"run every 1 to 10080 minutes, got {minutes}")
        table, key = INTERVAL_SETTINGS[job_id]
        update_settings_file(self.settings_file, {table: {key: minutes}})
        job = self.scheduler.get_job(job_id) if self.scheduler is not None else None
        if job is not None:
            self.scheduler.reschedule_job(job_id, trigger="interval", minutes=minutes)
            if job_id in self.paused.load():  # rescheduling resumes a job: keep the user's pause
                self.scheduler.pause_job(job_id)

    def set_paused(self, job_id: str, paused: bool) -> None:
        """Pause or resume one job now, and remember the choice for the next start."""
        if self.scheduler is None or self.scheduler.get_job(job_id) is None:
            raise InvalidInput(f"no scheduled job {job_id!r}", hint="reopen Settings to see the current jobs")
        ids = self.paused.load()
        if paused:
            self.scheduler.pause_job(job_id)
            ids.add(job_id)
        else:
            self.scheduler.resume_job(job_id)
            ids.discard(job_id)
        self.paused.save(ids)

    def jobs(self) -> list[tuple[str, str, Any]]:
        """(id, name, next run time) of every scheduled job, for the Settings screen."""
        if self.scheduler is None:
            return []
        return [(j.id, j.name, getattr(j, "next_run_time", None)) for j in self.scheduler.get_jobs()]

    def stop(self) -> None:
        self.host.stop()
