"""`strata privacy scan [--json] [--pii]`: stored messages and documents that hold secrets, by id."""

from __future__ import annotations

import typer

from app.cli.context import console, guarded, print_json, services

privacy_app = typer.Typer(
    help="Find stored messages and documents holding secrets (keys, passwords, cards…).",
    no_args_is_help=True,
)


@privacy_app.command("scan")
def scan_command(
    ctx: typer.Context,
    pii: bool = typer.Option(False, "--pii", help="Also list e-mail addresses and phone numbers."),
    limit: int = typer.Option(1000, "--limit", min=1, help="List at most this many records."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List stored records holding secrets (masked), with the ids to delete them by."""
    svc = services(ctx)
    report = guarded(lambda: svc.privacy.scan(include_pii=pii, limit=limit))
    if as_json:
        print_json(report.to_dict())
        return
    from rich.table import Table

    console.print(
        f"scanned {report.scanned_messages:,} messages and {report.scanned_documents:,} documents "
        f"for {', '.join(report.classes)}: {len(report.items)} hold sensitive values"
    )
    if not report.items:
        return
    table = Table()
    for column in ("kind", "id", "where", "time", "found", "preview (masked)"):
        table.add_column(column, overflow="fold")
    for item in report.items:
        data = item.to_dict()
        table.add_row(
            item.kind, item.id, item.where, (data["time"] or "")[:16], ", ".join(item.findings), item.preview
        )
    console.print(table)
    console.print(
        "Stored text stays as it is; delete a message with `DELETE /api/messages/<id>` (or the Search "
        "screen) and a document with `strata kb remove <id>`."
    )
