"""Screenshots of the shell's pages for `make screenshots`: welcome, quick popup, Settings sections."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from PySide6.QtWidgets import QApplication, QGroupBox, QScrollArea, QWidget

from app.ui.job_control import job_rows
from app.ui.main_window import MainWindow
from app.ui.quick_popup import QuickPopup
from app.ui.screenshots import DEMO_NOW, SHOTS, Shot, settle, shot


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


@shot("welcome")
def _welcome(window: MainWindow) -> None:
    search = window.show_screen("search")
    search.query_edit.clear()  # type: ignore[attr-defined]
    window.show_welcome()
    window.sidebar.setFocus()


@shot("quick-search")
def _quick(window: MainWindow) -> QWidget:
    # A popup of its own: the render closes and deletes what a shot returns.
    popup = QuickPopup(window.open_hit)
    popup.set_memory(window.ctx.service("memory"))
    popup.popup("when is the launch")
    settle(_app())
    return popup


def _settings_at(window: MainWindow, title: str) -> None:
    screen = window.show_screen("settings")
    settle(_app())
    scroll = screen.findChild(QScrollArea)
    if scroll is None:
        return
    scroll.verticalScrollBar().setValue(0)
    for box in screen.findChildren(QGroupBox):
        if title and box.title().startswith(title):
            scroll.verticalScrollBar().setValue(box.y())
    window.sidebar.setFocus()


def _settings_top(window: MainWindow) -> None:
    _settings_at(window, "")  # the section shots scroll the page; the plain one starts at the top
    _plain_settings.prepare(window)


_plain_settings = SHOTS["settings"]
SHOTS["settings"] = Shot("settings", _settings_top, "settings")


class _PausedJobs:
    """The app's real job list on a scheduler started paused: next runs show, nothing runs."""

    def __init__(self, services: Any) -> None:
        from apscheduler.schedulers.background import BackgroundScheduler

        from app.services.scheduling import register_jobs

        self.scheduler = BackgroundScheduler(daemon=True)
        register_jobs(self.scheduler, services)
        self.scheduler.start(paused=True)

    def job_rows(self) -> list[Any]:
        # Next runs as if started at the demo's "now", to the minute: the same pixels every run.
        now = datetime.now(UTC)
        rows = job_rows(self.scheduler, set())
        return [replace(r, next_run=_demo_time(r.next_run, now)) for r in rows]


def _demo_time(moment: datetime | None, now: datetime) -> datetime | None:
    if moment is None:
        return None
    minutes = round((moment - now).total_seconds() / 60)
    return DEMO_NOW + timedelta(minutes=minutes)


@shot("settings-schedules")
def _schedules(window: MainWindow) -> None:
    if window.ctx.hosting is None:
        window.ctx.hosting = SimpleNamespace(scheduler=_PausedJobs(window.ctx.services), api=None)
        window.screens["settings"].reload()
    _settings_at(window, "Schedules")


@shot("settings-models")
def _models(window: MainWindow) -> None:
    _settings_at(window, "Embeddings")
