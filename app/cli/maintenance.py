"""`strata stats`, `strata doctor` and the built-in demo."""

from __future__ import annotations

import time

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, progress_bar, services
from app.cli.search import render

DEMO_QUERIES = ("when is the launch?", "who is fixing the login bug", "budget decision")


def stats_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Counts of messages, tiers, platforms, summaries and vectors."""
    data = guarded(services(ctx).memory.stats)
    if as_json:
        print_json(data)
        return
    table = Table(show_header=False)
    for key, value in data.items():
        table.add_row(key, escape(str(value)))  # per-platform counts name user data
    console.print(table)


def doctor_command(
    ctx: typer.Context,
    repair: bool = typer.Option(False, "--repair", help="Also recompute every content hash and fix drift."),
) -> None:
    """Check the data dir, schema, embedding model and indexes; repair drift between SQLite and LanceDB."""
    from app.core.storage.migrate import current_revisions, heads  # Alembic: only here

    svc = services(ctx)
    ok = True

    def check(name: str, passed: bool, detail: str) -> None:
        nonlocal ok
        ok &= passed
        console.print(f"{'[green]ok[/green]  ' if passed else '[red]FAIL[/red]'} {name}: {escape(detail)}")

    check("data dir", svc.layout.root.is_dir(), str(svc.layout.root))
    current = current_revisions(svc.db)
    check("schema", current == heads(), f"at {sorted(current)}")
    with svc.db.read_engine.connect() as conn:
        integrity = conn.exec_driver_sql("PRAGMA quick_check").scalar()
    check("sqlite integrity", integrity == "ok", str(integrity))
    try:
        started = time.perf_counter()
        svc.embedder.embed_query("doctor check")
        check(
            "embedding model",
            True,
            f"{svc.embedder.model_id} ({svc.embedder.dimensions}-d), "
            f"{(time.perf_counter() - started) * 1000:.0f} ms first call",
        )
    except Exception as exc:  # the model error carries its own fix
        check("embedding model", False, str(exc))
    with progress_bar("checking vectors", None) as update:
        report = guarded(lambda: svc.memory.repair(full=repair, progress=update))
    check(
        "vector index", True, f"re-embedded {report.reembedded}, removed {report.orphans_removed} orphan(s)"
    )
    if not ok:
        raise typer.Exit(1)


def demo_command(ctx: typer.Context) -> None:
    """Load the built-in demo conversation (once) and answer a few sample searches."""
    from app.services.demo import load_demo

    svc = services(ctx)
    result = guarded(lambda: load_demo(svc.memory))
    console.print(f"[bold]Strata[/bold] data dir: {svc.layout.root}")
    console.print(f"demo conversation: {result.imported} new, {result.duplicates} already there")
    for query in DEMO_QUERIES:
        console.rule(f"search: {query}")
        render(guarded(lambda q=query: svc.memory.search(q, limit=3)))
