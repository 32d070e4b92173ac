"""`strata import <format> PATH`: bring messages from files into memory."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from app.cli.context import console, guarded, print_json, progress_bar, services
from app.core.clock import iso

if TYPE_CHECKING:
    from app.bootstrap import Services
    from app.core.domain import IngestResult
    from connectors.importers.preview import ImportPreview

SHOWN_SKIPPED = 20
import_app = typer.Typer(help="Import messages from files (JSONL and chat exports).", no_args_is_help=True)


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


NoWait = typer.Option(
    False,
    "--no-wait",
    help="Return once the messages are stored (keyword search finds them at once); their vectors "
    "are made later by the app, `strata serve`, `strata doctor` or the next import.",
)


def embed_backlog(svc: Services, *, wait: bool, show: bool) -> dict[str, object]:
    """After storing: wait for the embedding backlog with a progress line (count, rate, ETA).

    Stopping here (Ctrl-C, or a killed process) loses nothing: rows without vectors stay in the
    backlog and the next drain (app, serve, doctor, next import) embeds them."""
    backlog = svc.processor.backlog
    if not wait:
        status = backlog.status()
        if show and status.pending:
            console.print(
                f"[dim]{status.pending} message(s) stored, not embedded yet: keyword search finds "
                "them now; the app, `strata serve`, `strata doctor` or the next import embeds them[/dim]"
            )
        return status.to_dict()
    started = time.perf_counter()
    first = backlog.status()
    with progress_bar("embedding (keyword search works already)", None, enabled=show) as update:
        status = guarded(lambda: backlog.wait(lambda s: update(s.embedded, s.embedded + s.pending)))
    if show:
        elapsed = time.perf_counter() - started
        if status.error is not None:
            console.print(
                f"[yellow]embedding stopped:[/yellow] {escape(status.error)}; {status.pending} message(s) "
                "keep keyword search only until `strata doctor` or the app embeds them"
            )
        elif status.pending and status.drainer is not None:
            console.print(
                f"[dim]another Strata process (pid {status.drainer.split(':')[0]}) is embedding the "
                f"remaining {status.pending} message(s)[/dim]"
            )
        elif first.pending or status.embedded:
            rate = f" ({status.embedded / elapsed:.0f}/s)" if elapsed > 0 and status.embedded else ""
            console.print(f"embedded {status.embedded} message(s) in {elapsed:.1f} s{rate}")
    keys = svc.memory.keys
    if keys is not None and status.error is None and not status.pending:
        # Sentence keys follow the vectors; stopping here loses nothing (repair builds the rest).
        with progress_bar("sentence keys (search works already)", None, enabled=show) as update:
            guarded(lambda: keys.wait(None, lambda s: update(s.embedded, s.embedded + s.pending)))
    return status.to_dict()


def report(result: IngestResult, as_json: bool, embedding: dict[str, object] | None = None) -> None:
    if as_json:
        print_json({**result.to_dict(), **({"embedding_backlog": embedding} if embedding else {})})
    else:
        console.print(
            f"imported [bold]{result.imported}[/bold], duplicates {result.duplicates}, "
            f"updated {result.updated}, errors {len(result.errors)}"
        )
        for error in result.errors[:20]:
            where = f"line {error.line}" if error.line else (error.message_id or "?")
            # Reasons and ids quote the user's data: printed as text, never as Rich markup.
            console.print(f"  [yellow]{escape(where)}[/yellow]: {escape(error.reason)}")
        if len(result.errors) > 20:
            console.print(f"  … and {len(result.errors) - 20} more (use --json for all)")
    exit_if_all_failed(result)


def exit_if_all_failed(result: IngestResult) -> None:
    """A run that stored nothing because every item was bad is a failure (exit 1), not a success."""
    if result.errors and not (result.imported or result.duplicates or result.updated):
        console.print(f"[red]error:[/red] none of the {len(result.errors)} items could be imported")
        raise typer.Exit(1)


@import_app.command("jsonl")
def import_jsonl(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ..., exists=True, dir_okay=False, readable=True, help="One JSON message per line."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {imported, duplicates, errors} as JSON."),
    no_wait: bool = NoWait,
) -> None:
    """Import a JSONL file: platform, message_id, channel, person, bot_id, timestamp, content, …"""
    from app.core.jsonl import parse_jsonl

    svc = services(ctx)
    svc.processor.backlog.autostart = not no_wait
    total = _count_lines(file)
    with (
        file.open("rb") as handle,
        progress_bar(f"importing {file.name}", total, enabled=not as_json) as update,
    ):
        # Lines without a user_id belong to the configured user (STRATA_USER_ID), not to "local".
        lines = parse_jsonl(handle, default_user=svc.settings.user_id)
        result = guarded(lambda: svc.memory.ingest(lines, progress=update, total=total, defer_embedding=True))
    embedding = embed_backlog(svc, wait=not no_wait, show=not as_json)
    report(result, as_json, embedding)


# -- chat exports -------------------------------------------------------------------------------
PathArg = typer.Argument(..., exists=True, readable=True, help="The export file (or its unpacked folder).")
DryRun = typer.Option(False, "--dry-run", help="Only parse and summarize the file; store nothing.")
AsJson = typer.Option(False, "--json", help="Print the preview and {imported, duplicates, errors} as JSON.")
TzOption = typer.Option(
    None, "--tz", help="IANA time zone of the export's local times (default: this computer's)."
)


def _show_preview(preview: ImportPreview) -> None:
    span = f"{(iso(preview.first_timestamp) or '?')[:16]} → {(iso(preview.last_timestamp) or '?')[:16]}"
    # Everything from the file is data, escaped so Rich never reads it as markup.
    console.print(
        f"[bold]{escape(preview.source)}[/bold] ({preview.format}): {preview.messages} messages, {span}"
    )
    for label, pairs in (("channels", preview.channels), ("people", preview.persons)):
        shown = ", ".join(f"{name} {count}" for name, count in pairs[:8])
        more = f" … +{len(pairs) - 8} more" if len(pairs) > 8 else ""
        console.print(f"  {label} ({len(pairs)}): {escape(shown)}{more}")
    if preview.skipped:
        console.print("  skipped: " + escape(", ".join(f"{reason} {n}" for reason, n in preview.skipped)))
    # Lines of a recognized file that could not be read: shown so the user can fix or accept them.
    for error in preview.rejected[:SHOWN_SKIPPED]:
        console.print(f"  [yellow]skipped[/yellow] {escape(error.reason)}")
    if len(preview.rejected) > SHOWN_SKIPPED:
        console.print(f"  … and {len(preview.rejected) - SHOWN_SKIPPED} more skipped (use --json for all)")
    for key, value in preview.details:
        console.print(f"  {escape(key)}: {escape(str(value))}")
    for warning in preview.warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(warning)}")
    for m in preview.sample:
        console.print(
            f"  [dim]{(iso(m.timestamp) or '')[:16]} {escape(m.channel)} · {escape(m.person)}:[/dim] "
            + escape(repr(m.content[:80]))
        )


def run_export_import(
    ctx: typer.Context,
    fmt: str,
    path: Path,
    *,
    dry_run: bool,
    as_json: bool,
    tz: str | None = None,
    date_order: str | None = None,
    chat_name: str | None = None,
    no_wait: bool = False,
) -> None:
    """Preview (validates the whole file), then unless --dry-run store it with a progress bar."""
    from app.services.import_service import ImportOptions, ImportReport  # with the services

    options = ImportOptions(tz=tz, date_order=date_order, chat_name=chat_name)
    svc = services(ctx)
    svc.processor.backlog.autostart = not no_wait
    started = time.perf_counter()
    with progress_bar(f"reading {path.name}", None, enabled=not as_json) as scan:
        preview = guarded(
            lambda: svc.imports.preview(
                fmt, path, options, progress=lambda _phase, done, total: scan(done, total)
            )
        )
    parsed = time.perf_counter()
    if not as_json:
        _show_preview(preview)
    result = None
    if not dry_run:
        with progress_bar(f"importing {path.name}", preview.messages, enabled=not as_json) as update:
            result = guarded(
                lambda: svc.imports.store(
                    preview, path, options, progress=lambda _phase, done, total: update(done, total)
                )
            )
    stored = time.perf_counter()
    embedding = embed_backlog(svc, wait=not no_wait, show=not as_json) if result is not None else None
    outcome = ImportReport(fmt, dry_run, preview, result, parsed - started, stored - parsed)
    if as_json:
        print_json({**outcome.to_dict(), **({"embedding_backlog": embedding} if embedding else {})})
        if result is not None:
            exit_if_all_failed(result)
    elif result is not None:
        report(result, as_json=False)
    else:
        console.print("[dim]dry run: nothing was stored[/dim]")


@import_app.command("slack")
def import_slack(
    ctx: typer.Context,
    path: Path = PathArg,
    dry_run: bool = DryRun,
    as_json: bool = AsJson,
    no_wait: bool = NoWait,
) -> None:
    """Import a Slack workspace export (.zip with channels.json, users.json and per-day JSON)."""
    run_export_import(ctx, "slack", path, dry_run=dry_run, as_json=as_json, no_wait=no_wait)


@import_app.command("telegram")
def import_telegram(
    ctx: typer.Context,
    path: Path = PathArg,
    dry_run: bool = DryRun,
    as_json: bool = AsJson,
    tz: str | None = TzOption,
    no_wait: bool = NoWait,
) -> None:
    """Import a Telegram Desktop export (result.json: one chat or the whole account)."""
    run_export_import(ctx, "telegram", path, dry_run=dry_run, as_json=as_json, tz=tz, no_wait=no_wait)


@import_app.command("discord")
def import_discord(
    ctx: typer.Context,
    path: Path = PathArg,
    dry_run: bool = DryRun,
    as_json: bool = AsJson,
    no_wait: bool = NoWait,
) -> None:
    """Import DiscordChatExporter JSON (one channel/thread file, or a folder of them)."""
    run_export_import(ctx, "discord", path, dry_run=dry_run, as_json=as_json, no_wait=no_wait)


@import_app.command("whatsapp")
def import_whatsapp(
    ctx: typer.Context,
    path: Path = PathArg,
    dry_run: bool = DryRun,
    as_json: bool = AsJson,
    tz: str | None = TzOption,
    date_order: str | None = typer.Option(
        None, "--date-order", help="DMY, MDY or YMD; detected from the whole file when omitted."
    ),
    chat_name: str | None = typer.Option(None, "--chat-name", help="Default: taken from the file name."),
    no_wait: bool = NoWait,
) -> None:
    """Import a WhatsApp 'Export chat' file (.txt, or the .zip around it; Android or iOS)."""
    run_export_import(
        ctx,
        "whatsapp",
        path,
        dry_run=dry_run,
        as_json=as_json,
        tz=tz,
        date_order=date_order,
        chat_name=chat_name,
        no_wait=no_wait,
    )


@import_app.command("email")
def import_email(
    ctx: typer.Context,
    path: Path = PathArg,
    dry_run: bool = DryRun,
    as_json: bool = AsJson,
    no_wait: bool = NoWait,
) -> None:
    """Import e-mail: an mbox file, a single .eml, or a folder of .eml files."""
    run_export_import(ctx, "email", path, dry_run=dry_run, as_json=as_json, no_wait=no_wait)
