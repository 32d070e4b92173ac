"""The `strata` command: global options and the list of sub-commands."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from app import __version__
from app.cli.backup import backup_command, export_command, restore_command
from app.cli.brief import brief_command
from app.cli.connectors import connectors_app
from app.cli.context import show_error, start_logging, state
from app.cli.files import files_app
from app.cli.forget import forget_app
from app.cli.importing import import_app
from app.cli.insights import insights_app
from app.cli.kb import kb_app
from app.cli.llm import llm_app
from app.cli.maintenance import demo_command, doctor_command, stats_command
from app.cli.mcp import mcp_app
from app.cli.messages import messages_app
from app.cli.privacy import privacy_app
from app.cli.reembed import reembed_command
from app.cli.search import search_command
from app.cli.serve import serve_command, token_command
from app.cli.ui import launch, quick_command, ui_command, wants_window
from app.core.errors import StrataError
from app.core.logs.setup import log_uncaught

cli = typer.Typer(
    name="strata",
    help="Strata: your messages and documents as a local, searchable memory.",
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"strata {__version__}")
        raise typer.Exit()


def _log_level(value: str | None) -> str | None:
    from app.core.logs.setup import parse_level

    try:
        return None if value is None else parse_level(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


@cli.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    data_dir: Path = typer.Option(
        None,
        "--data-dir",
        envvar="STRATA_DATA_DIR",
        help="Where Strata keeps its data (default: user data dir).",
    ),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True),
    log_level: str = typer.Option(
        None,
        "--log-level",
        callback=_log_level,
        help="DEBUG, INFO, WARNING or ERROR: what goes to <data dir>/logs/strata.log and stderr "
        "(default: the log_level setting or STRATA_LOG_LEVEL, INFO).",
    ),
) -> None:
    """With no command, start Strata on its defaults."""
    state(ctx).data_dir = data_dir
    state(ctx).log_level = log_level
    start_logging(ctx)
    if ctx.invoked_subcommand is None:
        if wants_window():  # the desktop app; on first run its welcome page offers the demo
            raise typer.Exit(launch(data_dir))
        demo_command(ctx)


cli.add_typer(import_app, name="import")
cli.add_typer(forget_app, name="forget")
cli.add_typer(kb_app, name="kb")
cli.add_typer(files_app, name="files")
cli.add_typer(insights_app, name="insights")
cli.add_typer(connectors_app, name="connectors")
cli.add_typer(messages_app, name="messages")
cli.command("search")(search_command)
cli.command("stats")(stats_command)
cli.command("brief")(brief_command)
cli.command("doctor")(doctor_command)
cli.command("demo")(demo_command)
cli.command("export")(export_command)
cli.command("backup")(backup_command)
cli.command("restore")(restore_command)
cli.command("reembed")(reembed_command)
cli.command("ui")(ui_command)
cli.command("quick")(quick_command)
cli.command("serve")(serve_command)
cli.command("token")(token_command)
cli.add_typer(mcp_app, name="mcp")
cli.add_typer(llm_app, name="llm")
cli.add_typer(privacy_app, name="privacy")


def run() -> None:
    # The process's entry point (not the CliRunner's): a crash is logged, masked, into the file.
    log_uncaught()
    try:
        cli()
    except StrataError as exc:
        # A failure outside a guarded call (e.g. while a command shuts down): still no traceback.
        show_error(exc)
        sys.exit(1)


if __name__ == "__main__":
    run()
