"""Shared CLI plumbing: the global options, lazily built services, and error display.

Start-up speed: this module (and every command module) imports only typer, rich and light
`app.core` modules; `app.bootstrap` (LanceDB, SQLAlchemy, ONNX, openai, …) is imported when a
command first asks for the services, so `strata --help` never pays for it.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app import __version__
from app.core.errors import StrataError

if TYPE_CHECKING:
    from app.bootstrap import Services
    from app.core.settings import Settings

T = TypeVar("T")
console = Console(stderr=True)
log = logging.getLogger(__name__)


@dataclass
class CliState:
    data_dir: Path | None = None
    services: Services | None = None
    log_level: str | None = None  # `--log-level`, above the setting for this command

    def settings(self) -> Settings:
        from app.core.settings import load_settings

        overrides = {"log_level": self.log_level} if self.log_level else {}
        return load_settings(self.data_dir, **overrides)

    def open(self) -> Services:
        if self.services is None:
            # Heavy (≈ 2–6 s of imports): only when a command really needs the data dir.
            from app.bootstrap import build_services

            self.services = build_services(self.settings())
        return self.services

    def close(self) -> None:
        if self.services is not None:
            self.services.close()
            self.services = None


def state(ctx: typer.Context) -> CliState:
    root = ctx.find_root()
    if not isinstance(root.obj, CliState):
        root.obj = CliState()
        root.call_on_close(root.obj.close)
    return root.obj


def start_logging(ctx: typer.Context, *, host: bool = False) -> None:
    """Strata's log set-up for this command, before anything logs (app/core/logs/setup.py).

    The file in the data dir gets the log level; stderr gets it too for a `host` (`serve`, `mcp`)
    or when `--log-level` was given, else warnings and errors only: a one-shot command's output
    is its own, and its INFO lines are in the file.
    """
    from app.core.logs.setup import at_least, configure_logging, early_level
    from app.core.paths import DataLayout, default_data_dir

    cli = state(ctx)
    layout = DataLayout((cli.data_dir or default_data_dir()).expanduser())
    level = early_level(layout.root, cli.log_level)
    shown = level if host or cli.log_level else at_least(level, "WARNING")
    configure_logging(layout.logs, level, console_level=shown)
    if host:  # a bug report's log then says which version ran which server on which data
        log.info("%s %s starting on %s", ctx.command_path, __version__, layout.root)


def services(ctx: typer.Context) -> Services:
    """The services for this invocation, built on first use (after --data-dir is known)."""
    return guarded(state(ctx).open)


def guarded(work: Callable[[], T]) -> T:
    """Run `work`; a StrataError becomes a readable message and exit code 1, not a traceback."""
    try:
        return work()
    except StrataError as exc:
        show_error(exc)
        raise typer.Exit(1) from exc


def show_error(exc: StrataError) -> None:
    """One sentence and a hint on stderr."""
    # Messages quote file names and user text: escaped so Rich prints them as written.
    console.print(f"[red]error:[/red] {escape(exc.message)}")
    if exc.hint:
        console.print(f"[dim]hint: {escape(exc.hint)}[/dim]")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


@contextmanager
def progress_bar(
    description: str, total: int | None, *, enabled: bool = True
) -> Iterator[Callable[[int, int | None], None]]:
    """A rich progress bar on stderr; yields an update(done, total) callback."""
    if not enabled:
        yield lambda done, total=None: None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task(description, total=total)

        def update(done: int, new_total: int | None = None) -> None:
            bar.update(task, completed=done, total=new_total or total)

        yield update
