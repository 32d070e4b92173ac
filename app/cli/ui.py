"""`strata ui` / `strata quick` (and `strata` with no command): open the desktop app or its popup.

One app per data dir: when one already runs, these commands signal it over a local socket
(raise its window / open the quick-search popup) instead of starting a second one.

PySide6 is imported only when the window is really opened, so other commands stay fast; the
services (LanceDB, SQLAlchemy, the model, …) are imported and built on a worker thread after the
window is on screen.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from app import __version__
from app.cli.context import console, state

if TYPE_CHECKING:
    from app.bootstrap import Services

log = logging.getLogger(__name__)


def display_available(*, allow_offscreen: bool = True) -> bool:
    """False on a Linux box without X11/Wayland (CI, SSH), where a window cannot open."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return allow_offscreen or platform not in ("offscreen", "minimal")
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def wants_window() -> bool:
    """Should `strata` with no command open the window rather than print the text demo?

    Yes on a real display when run from a terminal or as the packaged app; scripts, pipes and
    test runners (no TTY) and headless machines get the text demo.
    """
    interactive = sys.stdout.isatty() or bool(getattr(sys, "frozen", False))
    return interactive and display_available(allow_offscreen=False)


def ui_command(
    ctx: typer.Context,
    demo: bool = typer.Option(False, "--demo", help="Load the built-in demo conversation first (once)."),
) -> None:
    """Open the desktop app: search, insights, knowledge base, connectors, memory, settings."""
    _need_display()
    raise typer.Exit(launch(state(ctx).data_dir, demo="always" if demo else "never"))


def quick_command(
    ctx: typer.Context,
    text: str = typer.Argument("", help="Start the popup with this query."),
) -> None:
    """Open the quick-search popup of the running app (or start the app with it). Bind it to a key."""
    _need_display()
    raise typer.Exit(launch(state(ctx).data_dir, start="quick", text=text))


def _need_display() -> None:
    if not display_available():
        console.print("[red]error:[/red] no display to open a window on")
        console.print("[dim]hint: run it on a desktop session, or use `strata serve` / `strata search`[/dim]")
        raise typer.Exit(1)


def launch(data_dir: Path | None, *, demo: str = "never", start: str = "show", text: str = "") -> int:
    """Run the app until it quits, or hand `start` to the app already running on this data dir.

    `demo`: "always" loads the demo conversation first; "never" leaves an empty data dir to the
    welcome page, which offers it. `start`: "show" (the window) or "quick" (the popup).
    """
    from app.core.paths import default_data_dir
    from app.ui.qt_libs import missing_libraries, report, uses_xcb

    root = (data_dir or default_data_dir()).expanduser()
    # Qt aborts without a word in its own dialog when the X11 plug-in cannot load: check first.
    if uses_xcb():
        missing = missing_libraries()
        if missing is not None:
            report(missing, root / "logs")
            return 3
    from app.ui.app import run_app  # PySide6: only when a window really opens
    from app.ui.single_instance import send

    if send(root, start, text=text):
        what = "opened its quick search" if start == "quick" else "brought its window to the front"
        console.print(f"Strata is already running on {root}; {what}.")
        return 0
    log.info("strata %s desktop app starting on %s", __version__, root)

    def open_services() -> Services:  # runs on a worker thread while the window is already up
        from app.bootstrap import build_services
        from app.core.settings import load_settings
        from app.services.demo import load_demo

        svc = build_services(load_settings(data_dir))
        if demo == "always":
            load_demo(svc.memory)
        return svc

    return run_app(open_services, data_dir=root, start=start, text=text)
