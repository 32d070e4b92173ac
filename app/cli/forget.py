"""`strata forget run|status|undo`: the forgetting engine from the terminal."""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, services
from app.core.clock import iso

forget_app = typer.Typer(
    help="Forgetting engine: tier promotion, archiving and summaries.", no_args_is_help=True
)

TIER_COLUMNS = ("evaluated", "promoted", "archived", "summarized", "skipped", "deferred", "failed")
FAILING = {"failed", "lock_lost"}


def _counts_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"run {report.get('runId') or '(dry run)'}: {report['status']}")
    table.add_column("tier")
    for column in TIER_COLUMNS:
        table.add_column(column, justify="right")
    for tier in report["tiers"]:
        table.add_row(tier["tier"], *(str(tier[c]) for c in TIER_COLUMNS))
    totals = report["totals"]
    table.add_row("total", *(str(totals[c]) for c in TIER_COLUMNS), style="bold")
    return table


def _print_report(report: dict[str, Any]) -> None:
    console.print(_counts_table(report))
    for group in report.get("groups", []):
        # Channel names come from the user's data: escaped so Rich prints them as written.
        console.print(
            escape(
                f"  {group['summaryId']}  {group['sourceTier']}→{group['targetTier']}  "
                f"{(group['start'] or '')[:10]}  {group['dimensions'].get('platform')}/"
                f"{group['dimensions'].get('channel')}  {group['messageCount']} msgs: "
                f"{group['promoted']} promoted, {group['archived']} archived"
            )
        )
    for error in report["errors"]:
        reason = f"{error.get('summaryId', '')} {error.get('reason', '')}"
        console.print(f"[yellow]warning:[/yellow] {escape(reason)}")
    if report["message"]:
        console.print(escape(report["message"]))
    typer.echo(f"status: {report['status']}")


@forget_app.command("run")
def run_command(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; change nothing."),
    user: str = typer.Option(None, "--user", help="User id (default: the configured user)."),
    include_undone: bool = typer.Option(
        False, "--include-undone", help="Also forget records of runs you undid (left alone by default)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the run report as JSON."),
) -> None:
    """Run one forgetting cycle now: promote, archive and summarize records past their tier's age."""
    svc = services(ctx)
    report = guarded(
        lambda: svc.forgetting.run(user, dry_run=dry_run, trigger="cli", include_undone=include_undone)
    ).to_dict()
    if as_json:
        print_json(report)
    else:
        _print_report(report)
    if report["status"] in FAILING:
        raise typer.Exit(1)


@forget_app.command("status")
def status_command(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help="User id (default: the configured user)."),
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
) -> None:
    """Schedule, last run and its result, lock, and how many records wait for the next run."""
    svc = services(ctx)
    status = guarded(lambda: svc.forgetting.status(user))
    if as_json:
        print_json(status)
        return
    sched = status["scheduler"]
    typer.echo(
        f"enabled: {status['enabled']}  every {status['intervalMinutes']} min  "
        f"llm summaries: {status['llmSummaries']}"
    )
    if sched["active"]:
        typer.echo(f"scheduler: active on {sched['host']} (pid {sched['pid']}), next run {status['nextRun']}")
    elif sched["host"] and sched["pid"]:
        typer.echo(
            f"scheduler: not running (its host {sched['host']} pid {sched['pid']} stopped answering); "
            "start `strata serve` or the app"
        )
    else:
        typer.echo("scheduler: not running here (start `strata serve` or the app); next run: unknown")
    waiting = status.get("pendingPlan")
    if waiting:
        console.print(
            f"[yellow]waiting for you:[/yellow] a scheduled run would archive {waiting['archive']} records "
            f"and write {waiting['summaries']} summaries (run {waiting['runId']}). "
            "Preview: `strata forget run --dry-run`; run: `strata forget run`; "
            "not now: `strata forget dismiss`"
        )
    last = status["lastRun"]
    if last:
        typer.echo(f"last run: {last['runId']} {last['status']} at {last['startedAt']} ({last['trigger']})")
        console.print(_counts_table(last))
    else:
        typer.echo("last run: never")
    lock = status["lock"]
    if lock and lock["active"]:
        typer.echo(f"lock: held until {iso(lock['expiresAt'])}")
    pending = ", ".join(f"{tier} {n}" for tier, n in status["pendingCandidates"].items())
    typer.echo(f"waiting: {pending}; summaries: {status['summaries']}")
    for run in status["recentRuns"][1:]:
        typer.echo(f"  earlier: {run['runId']} {run['status']} {run['startedAt']}")


@forget_app.command("undo")
def undo_command(
    ctx: typer.Context,
    run_id: str = typer.Argument(..., help="The run to undo (see `strata forget status`)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Restore a run's archived records and tiers and delete the summaries it created."""
    svc = services(ctx)
    result = guarded(lambda: svc.forgetting.undo(run_id)).to_dict()
    if as_json:
        print_json(result)
    else:
        typer.echo(
            f"{result['runId']}: {result['status']} — {result['restored']} records restored "
            f"({result['unarchived']} unarchived), {result['summariesRemoved']} summaries removed"
        )
        if result["message"]:
            typer.echo(result["message"])
    if result["status"] == "skipped_locked":
        raise typer.Exit(1)


@forget_app.command("dismiss")
def dismiss_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """'Not now' for a scheduled run waiting for you: hide it and pause scheduled runs for a day."""
    svc = services(ctx)
    result = guarded(lambda: svc.forgetting.dismiss_pending())
    if as_json:
        print_json(result)
    else:
        typer.echo(f"{result['runId']}: not now; scheduled runs resume at {result['resumesAt']}")
