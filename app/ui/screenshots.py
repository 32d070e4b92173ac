"""`make screenshots`: render every screen offscreen, from the shipped demo, into docs/screenshots.

Run as ``python -m app.ui.screenshots [--out DIR] [--only NAME ...]``. Each registered shot
prepares the window (or opens a dialog), waits for the background ops to deliver, and is saved
as ``<name>-<w>x<h>.png`` for every size in SIZES. The data dir is built fresh from
``resources/demo`` with a fixed clock and UTC times, so the pictures only change when the UI does.

Other screens add themselves with the ``@shot("name")`` decorator below: the function receives
the MainWindow and returns the widget to grab (None: the whole window).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from app.ui.main_window import MainWindow
from app.ui.ops import wait_for_pool

SIZES: tuple[tuple[int, int], ...] = ((1440, 900), (900, 600))
# "Now" for the demo: a week after its last message (Saturday 21 November 2026, 12:00 UTC).
DEMO_NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
DEMO_DOCUMENT = ("demo", "aurora-launch-plan.md")
DEMO_DOCUMENT_ADDED = datetime(2026, 11, 10, 10, 30, tzinfo=UTC)
DEFAULT_OUT = Path("docs") / "screenshots"
DEMO_DATA_DIR = "strata-demo"

Prepare = Callable[[MainWindow], QWidget | None]


@dataclass(frozen=True)
class Shot:
    name: str
    prepare: Prepare
    screen: str | None  # the main-window page it shows (a test checks every page has a shot)


SHOTS: dict[str, Shot] = {}


def shot(name: str, screen: str | None = None) -> Callable[[Prepare], Prepare]:
    """Register a screenshot: `prepare(window)` sets the scene and returns the widget to grab."""

    def register(fn: Prepare) -> Prepare:
        SHOTS[name] = Shot(name, fn, screen)
        return fn

    return register


def settle(app: QApplication, rounds: int = 6) -> None:
    """Let background ops finish and their results (and the reloads they trigger) paint."""
    for _ in range(rounds):
        wait_for_pool(timeout_ms=30_000)
        deadline = time.monotonic() + 0.05
        while time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.005)


def _screen(window: MainWindow, key: str) -> Any:
    screen = window.show_screen(key)
    screen.setFocus()  # no blinking text cursor in the picture
    return screen


def _fresh_search(window: MainWindow) -> Any:
    """The Search screen with no query, chips or open result left from an earlier shot."""
    from app.ui.search_state import SearchState

    screen = _screen(window, "search")
    screen.state = SearchState()
    screen.chip_bar.set_chips([])
    screen.sort_combo.setCurrentIndex(0)
    screen.detail.show_nothing()
    return screen


def _select_first_message(screen: Any) -> None:
    """Open the first chat message (not a document), so the detail shows a conversation."""
    rows = screen.model.rows
    row = next((r for r, hit in enumerate(rows) if hit.kind == "message"), 0)
    screen.table.selectRow(row)
    screen.query_edit.deselect()
    screen.table.setFocus()


# --- the registry: every page of the main window, then dialogs ---------------------------------
@shot("search-empty", "search")
def _search_empty(window: MainWindow) -> None:
    screen = _fresh_search(window)
    screen.clear()
    screen.reload()  # the example queries for an empty search box
    screen.table.setFocus()  # no blinking text cursor, no focus frame on the sidebar


@shot("search", "search")
def _search(window: MainWindow) -> None:
    screen = _fresh_search(window)
    screen.focus_query("who owns the status page")
    screen.run_search()
    settle(_app())
    _select_first_message(screen)


@shot("search-filtered", "search")
def _search_filtered(window: MainWindow) -> None:
    screen = _fresh_search(window)
    screen.focus_query("budget decision this month")
    screen.add_chip("channel", "finance")
    settle(_app())
    _select_first_message(screen)


@shot("insights", "insights")
def _insights(window: MainWindow) -> None:
    screen = _screen(window, "insights")
    settle(_app())
    screen.tabs.setCurrentIndex(0)
    screen.table.selectRow(0)  # the detail with its evidence, as a user sees it after one click


@shot("insights-over-time", "insights")
def _insights_over_time(window: MainWindow) -> None:
    screen = _screen(window, "insights")
    screen.tabs.setCurrentIndex(1)


@shot("knowledge-base", "knowledge_base")
def _knowledge(window: MainWindow) -> None:
    screen = _screen(window, "knowledge_base")
    settle(_app())
    screen.table.selectRow(0)


@shot("connectors", "connectors")
def _connectors(window: MainWindow) -> None:
    _screen(window, "connectors")


@shot("memory", "memory")
def _memory(window: MainWindow) -> None:
    screen = _screen(window, "memory")
    if screen.forgetting is not None:
        screen.preview()  # what the next run would do, next to the engine's status


@shot("files", "files")
def _files(window: MainWindow) -> None:
    _screen(window, "files")


@shot("settings", "settings")
def _settings(window: MainWindow) -> None:
    _screen(window, "settings")


@shot("dialog-add-connector")
def _add_connector(window: MainWindow) -> QWidget:
    from app.ui.screens.connectors_add import AddConnectorDialog

    screen = _screen(window, "connectors")
    return AddConnectorDialog(screen.connectors.kinds(), screen)


@shot("dialog-import")
def _import(window: MainWindow) -> QWidget:
    from app.ui.screens.connectors_import import ImportWizard

    return ImportWizard(_screen(window, "connectors"))


# The shell's own pages (welcome, quick popup, Settings sections) register from their module.
import app.ui.screenshots_shell  # noqa: E402, F401


# --- building the demo and rendering ----------------------------------------------------------
def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


def build_demo_services(data_dir: Path, embedder: Any = None) -> Any:
    """Services over a fresh data dir holding the shipped demo, with the clock fixed at DEMO_NOW."""
    from app.bootstrap import build_services
    from app.core.clock import FixedClock, datetime_to_ms
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.paths import resource_path
    from app.core.settings import Settings
    from app.services.demo import load_demo

    settings = Settings(data_dir=data_dir)
    clock = FixedClock(datetime_to_ms(DEMO_NOW))
    try:
        services = build_services(settings, clock=clock, embedder=embedder)
    except Exception as exc:  # e.g. the local model is not installed: text still renders
        print(f"screenshots: local model unavailable ({exc}); using the hashing embedder", file=sys.stderr)
        services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    # "Opened N times" would depend on when the access counts flush (a 2 s timer): the pictures
    # keep the stored counts instead of counting the renderer's own clicks.
    services.access.record = lambda _ids: None
    load_demo(services.memory)
    document = resource_path(*DEMO_DOCUMENT)
    if services.knowledge is not None and document.exists():
        clock.set(datetime_to_ms(DEMO_DOCUMENT_ADDED))  # added a few days before "now"
        services.knowledge.add_file(document, actor="demo")
        clock.set(datetime_to_ms(DEMO_NOW))
    if services.insights is not None:
        services.insights.generate()
    if getattr(services, "files", None) is not None:
        services.files.refresh()  # the memory-file pages the Files screen lists
        # Pages carry their file's modification time; pin it so the pictures do not change.
        stamp = DEMO_NOW.timestamp() - 3600
        for page in services.layout.memory.rglob("*"):
            os.utime(page, (stamp, stamp))
    return services


def render(
    out: Path,
    names: list[str] | None = None,
    sizes: tuple[tuple[int, int], ...] = SIZES,
    *,
    embedder: Any = None,
) -> list[Path]:
    """Render the chosen shots (all by default) at every size; returns the files written.

    `embedder` defaults to the configured local model; tests pass the hashing one.
    """
    from app.ui.app import build_window, ensure_qapp
    from app.ui.theme import apply_theme

    unknown = sorted(set(names or []) - set(SHOTS))
    if unknown:
        raise SystemExit(f"unknown screenshot {', '.join(unknown)}; known: {', '.join(SHOTS)}")
    app = ensure_qapp([sys.argv[0]])
    with tempfile.TemporaryDirectory(prefix="strata-shots-") as tmp:
        # Window geometry and the last screen go to a throwaway place, never the user's settings.
        QCoreApplication.setOrganizationName("strata-screenshots")
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(Path(tmp) / "qs"))
        apply_theme(app, dark=False)
        out = out.resolve()
        # A relative data dir inside the temp folder: Settings shows the same path on every run.
        cwd = Path.cwd()
        os.chdir(tmp)
        try:
            services = build_demo_services(Path(DEMO_DATA_DIR), embedder)
        except BaseException:
            os.chdir(cwd)
            raise
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        window = build_window(services, debug=False)
        try:
            window.show()
            for width, height in sizes:
                window.resize(width, height)
                for name in names or list(SHOTS):
                    target = SHOTS[name].prepare(window)
                    if isinstance(target, QDialog):
                        target.setModal(False)
                        target.show()  # the size a person sees, capped to the window's
                        target.resize(min(target.width(), width), min(target.height(), height))
                    settle(app)
                    path = out / f"{name}-{width}x{height}.png"
                    (target or window).grab().save(str(path))
                    written.append(path)
                    if target is not None:
                        target.close()
                        target.deleteLater()
        finally:
            window.close()
            settle(app, rounds=1)
            services.close()
            os.chdir(cwd)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.ui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the PNGs")
    parser.add_argument("--only", nargs="*", metavar="NAME", help=f"shots to render: {', '.join(SHOTS)}")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["TZ"] = "UTC"  # times on screen must not depend on where the pictures are made
    if hasattr(time, "tzset"):
        time.tzset()
    started = time.monotonic()
    written = render(args.out, args.only)
    print(f"screenshots: {len(written)} images in {args.out} ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    # Run the importable copy, where modules like screenshots_shell registered their shots.
    from app.ui import screenshots as registry

    raise SystemExit(registry.main())
