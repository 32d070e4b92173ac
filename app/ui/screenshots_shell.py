"""Screenshots of the shell's pages for `make screenshots`: welcome, quick popup, Settings sections."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QGroupBox, QScrollArea, QWidget

from app.ui.main_window import MainWindow
from app.ui.quick_popup import QuickPopup
from app.ui.screenshots import SHOTS, Shot, settle, shot


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


@shot("settings-schedules")
def _schedules(window: MainWindow) -> None:
    _settings_at(window, "Schedules")


@shot("settings-models")
def _models(window: MainWindow) -> None:
    _settings_at(window, "Embeddings")
