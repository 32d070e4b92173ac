"""Application entry: QApplication, palette, main window, tray; `run_app(services)` blocks until quit."""

from __future__ import annotations

import os
import sys
from typing import Any

from PySide6.QtWidgets import QApplication

from app.ui.context import UiContext
from app.ui.events import UiEvents
from app.ui.icons import app_icon
from app.ui.main_window import MainWindow
from app.ui.ops import GuiThreadGuard, wait_for_pool
from app.ui.theme import apply_theme, follow_system_scheme
from app.ui.tray import install_tray

DEBUG_ENV = "STRATA_UI_DEBUG"


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


def build_window(services: Any, *, debug: bool | None = None) -> MainWindow:
    """The window over `services`; with `debug` every service call is checked for the GUI thread."""
    if debug is None:
        debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
    guard = GuiThreadGuard(strict=False) if debug else None
    ctx = UiContext(services=services, events=UiEvents(), guard=guard)
    return MainWindow(ctx)


def run_app(services: Any, argv: list[str] | None = None) -> int:
    """Start the desktop app over already-built services; returns the exit code."""
    app = ensure_qapp(argv)
    apply_theme(app)
    follow_system_scheme(app)
    # Closing the window keeps the tray alive only when a tray exists.
    window = build_window(services)
    tray = install_tray(window)
    app.setQuitOnLastWindowClosed(tray is None or not tray.isVisible())
    window.show()
    app.aboutToQuit.connect(lambda: _shutdown(window))
    return app.exec()


def _shutdown(window: MainWindow) -> None:
    window.save_state()
    # Let running writes finish so nothing is cut mid-transaction.
    wait_for_pool(timeout_ms=10_000)
    guard = window.ctx.guard
    if guard is not None and guard.violations:
        print(
            f"strata ui debug: {len(guard.violations)} service calls ran on the GUI thread:", file=sys.stderr
        )
        for name in sorted(set(guard.violations)):
            print(f"  {name}", file=sys.stderr)
