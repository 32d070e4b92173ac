"""Application entry: QApplication, palette, main window, tray; `run_app(services)` blocks until quit.

Start-up speed: this module imports only Qt and light `app.ui` modules. The services (LanceDB,
SQLAlchemy, the ONNX model, openai; the API server's FastAPI and MCP SDK later still) are imported
and built on a worker thread once the window is on screen, and the screens attach when they arrive.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.ui.context import UiContext
from app.ui.errors import describe
from app.ui.events import UiEvents, bridge_core_events
from app.ui.hosting import ApiServerHost, SchedulerHost
from app.ui.icons import app_icon
from app.ui.main_window import MainWindow
from app.ui.ops import GuiThreadGuard, QueryOp, wait_for_pool
from app.ui.single_instance import InstanceServer
from app.ui.theme_choice import apply_choice, follow_system
from app.ui.tray import install_tray

DEBUG_ENV = "STRATA_UI_DEBUG"
# Set, the app writes `strata-ui-trace <event> <time.monotonic()> [detail]` lines to stderr when the
# window first answers input and when the services are attached (tests/benchmarks/bench_ui_start.py).
TRACE_ENV = "STRATA_UI_TRACE"
HEAVY_MODULES = ("lancedb", "onnxruntime", "openai", "mcp", "fastapi", "sqlalchemy", "pyarrow")


def trace(event: str, detail: str = "") -> None:
    if os.environ.get(TRACE_ENV, "") not in ("", "0"):
        line = f"strata-ui-trace {event} {time.monotonic():.4f} {detail}".rstrip()
        print(line, file=sys.stderr, flush=True)


def heavy_modules_loaded() -> list[str]:
    """Which of the libraries that must wait for the services are imported already."""
    return [name for name in HEAVY_MODULES if name in sys.modules]


def ensure_qapp(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setOrganizationName("Strata")
    app.setApplicationName("Strata")
    app.setApplicationDisplayName("Strata")
    app.setWindowIcon(app_icon())
    return app


def build_window(services: Any | None, *, debug: bool | None = None) -> MainWindow:
    """The window over `services` (None: attach later); `debug` checks every service call's thread."""
    if debug is None:
        debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
    guard = GuiThreadGuard(strict=False) if debug else None
    ctx = UiContext(services=None, events=UiEvents(), guard=guard)
    window = MainWindow(ctx)
    if services is not None:
        attach(window, services)
    return window


def attach(window: MainWindow, services: Any) -> None:
    """Give the window its services and let core change events reach the views."""
    bus = getattr(services, "events", None)
    if bus is not None and hasattr(bus, "subscribe"):
        window.ctx.unsubscribe_core = bridge_core_events(bus, window.ctx.events)
    clock = getattr(services, "clock", None)
    if clock is not None:
        window.ctx.clock = clock
    window.attach_services(services)


def is_first_run(services: Any) -> bool:
    """Nothing stored yet: no messages and no documents (a service call: off the GUI thread)."""
    if services.memory.has_messages():
        return False
    knowledge = getattr(services, "knowledge", None)
    return knowledge is None or knowledge.count() == 0


def run_app(
    services: Any,
    argv: list[str] | None = None,
    *,
    data_dir: Path | None = None,
    start: str = "show",
    text: str = "",
) -> int:
    """Start the desktop app; returns the exit code.

    `services` is a built Services container, or a zero-argument callable that builds one: then
    the window shows at once and the data dir (LanceDB, migrations, repair) opens in the
    background, which is what keeps cold start short. With `data_dir`, the app listens for later
    `strata ui` / `strata quick` on that data dir (single instance); `start="quick"` opens the
    quick-search popup on top.
    """
    app = ensure_qapp(argv)
    apply_choice(app)
    follow_system(app)
    window = build_window(None)
    tray = install_tray(window)
    in_tray = tray is not None and tray.isVisible()
    # Closing the window keeps the app in the tray only when a tray is really shown.
    app.setQuitOnLastWindowClosed(not in_tray)
    host = AppHost(window)
    if data_dir is not None:
        host.listen(data_dir)
    if start == "quick":
        trace("popup")
    if start == "quick" and in_tray:
        window.quick_search(text)  # Spotlight-like: only the popup; the window waits in the tray
    else:
        window.show()
        if start == "quick":
            window.quick_search(text)
    app.processEvents()  # paint the window now, before a worker thread competes for the GIL

    def interactive() -> None:
        # First turn of the event loop: the window answers input; only now start the heavy part.
        trace("window", ",".join(heavy_modules_loaded()) or "none")
        if callable(services):
            QueryOp(parent=window, op=services, success=host.opened).failure(host.failed).run_in_background()
        else:
            host.opened(services)

    QTimer.singleShot(0, interactive)
    app.aboutToQuit.connect(host.shutdown)
    quit_on_terminate(app)
    return app.exec()


def quit_on_terminate(app: QApplication) -> None:
    """SIGTERM (logout, `kill`) quits like the menu does: writes finish, the instance token goes."""
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    # Python runs signal handlers only between bytecodes; a light tick lets it while Qt waits.
    tick = QTimer(app)
    tick.timeout.connect(lambda: None)
    tick.start(300)


class AppHost:
    """Owns what runs beside the window: the services, the scheduler and the API server."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.services: Any = None
        self.scheduler: SchedulerHost | None = None
        self.api: ApiServerHost | None = None
        self.instance: InstanceServer | None = None

    def listen(self, data_dir: Path) -> bool:
        """Answer later `strata ui` (raise the window) and `strata quick` (the popup) for this data dir."""
        self.instance = InstanceServer(data_dir, self.command, parent=self.window)
        if not self.instance.listen():
            print("strata: another Strata window is starting on this data dir", file=sys.stderr)
            return False
        return True

    def command(self, command: str, text: str) -> None:
        trace("command", command)
        if command == "quick":
            self.window.quick_search(text)
        else:
            self.window.bring_to_front()

    def opened(self, services: Any) -> None:
        self.services = services
        self.scheduler = SchedulerHost(services)
        self.api = ApiServerHost(services)
        self.window.ctx.hosting = self
        attach(self.window, services)
        trace("services")
        # First run (nothing stored yet): the welcome page offers the demo, imports, documents.
        QueryOp(parent=self.window, op=lambda: is_first_run(services), success=self._welcome).failure(
            self._report
        ).run_in_background()
        # Jobs and the server start off the GUI thread: APScheduler and uvicorn import lazily.
        QueryOp(parent=self.window, op=self.scheduler.start).failure(self._report).run_in_background()
        settings = getattr(services, "settings", None)
        if settings is not None and settings.api.enabled_in_app:
            port = settings.api.port
            QueryOp(parent=self.window, op=lambda: self.api.start(port)).failure(
                self._report
            ).run_in_background()

    def _welcome(self, first_run: bool) -> None:
        if first_run:
            self.window.show_welcome()
        trace("welcome" if first_run else "returning")

    def failed(self, exc: BaseException) -> None:
        title, detail = describe(exc)
        self.window.show_failure(f"{title}.\n{detail}")
        trace("failed", title)

    def _report(self, exc: BaseException) -> None:
        # Scheduler/server trouble must not stop the window; Settings shows the server state.
        title, detail = describe(exc)
        print(f"strata: {title}: {detail}", file=sys.stderr)

    def shutdown(self) -> None:
        self.window.save_state()
        if self.instance is not None:
            self.instance.close()
        if self.scheduler is not None:
            self.scheduler.stop()
        if self.api is not None:
            self.api.stop()
        # Let running writes finish so nothing is cut mid-transaction.
        wait_for_pool(timeout_ms=10_000)
        guard = self.window.ctx.guard
        if guard is not None and guard.violations:
            count = len(guard.violations)
            print(f"strata ui debug: {count} service calls ran on the GUI thread:", file=sys.stderr)
            for name in sorted(set(guard.violations)):
                print(f"  {name}", file=sys.stderr)
        close = getattr(self.services, "close", None)
        if close is not None:
            close()
