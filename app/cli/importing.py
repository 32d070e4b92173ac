"""`strata import <format> PATH`: bring messages from files into memory."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.context import console, guarded, print_json, progress_bar, services
from app.core.domain import IngestResult
from app.core.jsonl import parse_jsonl

import_app = typer.Typer(help="Import messages from files (JSONL and chat exports).", no_args_is_help=True)


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def report(result: IngestResult, as_json: bool) -> None:
    if as_json:
        print_json(result.to_dict())
        return
    console.print(
        f"imported [bold]{result.imported}[/bold], duplicates {result.duplicates}, "
        f"updated {result.updated}, errors {len(result.errors)}"
    )
    for error in result.errors[:20]:
        where = f"line {error.line}" if error.line else (error.message_id or "?")
        console.print(f"  [yellow]{where}[/yellow]: {error.reason}")
    if len(result.errors) > 20:
        console.print(f"  … and {len(result.errors) - 20} more (use --json for all)")


@import_app.command("jsonl")
def import_jsonl(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ..., exists=True, dir_okay=False, readable=True, help="One JSON message per line."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {imported, duplicates, errors} as JSON."),
) -> None:
    """Import a JSONL file: platform, message_id, channel, person, bot_id, timestamp, content, …"""
    svc = services(ctx)
    total = _count_lines(file)
    with (
        file.open("rb") as handle,
        progress_bar(f"importing {file.name}", total, enabled=not as_json) as update,
    ):
        result = guarded(lambda: svc.memory.ingest(parse_jsonl(handle), progress=update, total=total))
    report(result, as_json)
