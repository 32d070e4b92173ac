"""`strata export|backup|restore`: take your data out in open formats, snapshot it, bring a snapshot back."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.context import console, guarded, print_json, services, state


def export_command(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="A new folder to write the export into."),
    as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Export everything you own in open formats: messages (JSONL import format, archived text
    included), summaries, insights, knowledge-base originals and settings without secrets."""
    svc = services(ctx)
    assert svc.exports is not None
    report = guarded(lambda: svc.exports.export(path))  # type: ignore[union-attr]
    if as_json:
        print_json(report.to_dict())
        return
    c = report.counts
    typer.echo(
        f"exported {c['messages']} messages, {c['summaries']} summaries, {c['insights']} insights, "
        f"{c['documents']} documents to {report.path}"
    )
    typer.echo(f"re-import with: strata import jsonl {report.path / 'messages.jsonl'}")


def backup_command(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="A new folder to write the backup into."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Take a consistent snapshot of the data dir, safe while the app or an import is running."""
    svc = services(ctx)
    assert svc.exports is not None
    report = guarded(lambda: svc.exports.backup(path))  # type: ignore[union-attr]
    if as_json:
        print_json(report.to_dict())
        return
    typer.echo(
        f"backed up {report.messages} messages, {report.vector_tables} vector tables and "
        f"{report.documents} documents to {report.path} in {report.seconds:.1f} s"
    )
    typer.echo(f"restore with: strata --data-dir NEW_DIR restore {report.path}")


def restore_command(
    ctx: typer.Context,
    path: Path = typer.Argument(..., exists=True, file_okay=False, help="A folder made by `strata backup`."),
    force: bool = typer.Option(
        False, "--force", help="Replace a non-empty data dir (its contents are moved aside, not deleted)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Bring a backup back into the data dir (stop the app and `strata serve` first)."""
    from app.core.settings import load_settings
    from app.services.export_service import restore_data_dir

    root = load_settings(state(ctx).data_dir).layout.root
    moved = guarded(lambda: restore_data_dir(path, root, force=force))
    svc = services(ctx)  # opens the restored store and runs its migrations
    # Opening never repairs (repair stays off read paths), but a restore is maintenance: rows whose
    # vectors were still being written when the backup was taken are embedded now.
    guarded(lambda: svc.index.repair())
    stats = svc.memory.stats()
    result = {
        "dataDir": str(root),
        "messages": stats["messages"],
        "vectors": stats["vectors"],
        "previousDataMovedTo": str(moved) if moved else None,
    }
    if as_json:
        print_json(result)
        return
    typer.echo(f"restored {stats['messages']} messages into {root}")
    if moved:
        console.print(f"the previous contents are in {moved}")
