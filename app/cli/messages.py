"""`strata messages show|delete`: read one stored message (archived text included) and delete for good."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from app.cli.context import console, guarded, print_json, services
from app.core.clock import iso

if TYPE_CHECKING:
    from app.core.domain import MessageRecord

messages_app = typer.Typer(help="Read or delete stored messages.", no_args_is_help=True)


def _record_dict(record: MessageRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "platform": record.platform,
        "message_id": record.message_id,
        "channel": record.channel,
        "person": record.person,
        "time": iso(record.timestamp),
        "tier": str(record.memory_stage),
        "pinned": record.is_pinned,
        "archived_at": iso(record.archived_at),
        "summary_ref_id": record.summary_ref_id,
        "content": record.content,
        "attachments": [a.to_dict() for a in record.attachments],
    }


def _print_record(record: MessageRecord, *, marker: str = "") -> None:
    where = f"{record.platform} #{record.channel}" if record.channel else record.platform
    state = f"  [yellow]archived {iso(record.archived_at)}[/yellow]" if record.archived_at else ""
    console.print(
        f"{marker}[bold]#{record.id}[/bold] {iso(record.timestamp)}  {escape(where)}  "
        f"{escape(record.person)}  tier {record.memory_stage}{state}"
    )
    if record.content is not None:
        typer.echo(record.content)


@messages_app.command("show")
def show_command(
    ctx: typer.Context,
    record_id: int = typer.Argument(..., min=1, help="The message's id (the `id` of a search hit)."),
    context: int = typer.Option(0, "--context", min=0, max=50, help="Also show N messages around it."),
    as_json: bool = typer.Option(False, "--json", help="Print the message as JSON."),
) -> None:
    """Show one message in full, including the verbatim text of an archived message."""
    svc = services(ctx)
    found = guarded(
        lambda: svc.memory.context(record_id, before=context, after=context, reveal_archived=True)
    )
    if as_json:
        data = _record_dict(found.record)
        if context:
            data["neighbours"] = [_record_dict(r) for r in found.neighbours]
        print_json(data)
        return
    here = (found.record.timestamp, found.record.id)
    for record in [r for r in found.neighbours if (r.timestamp, r.id) < here]:
        _print_record(record, marker="  ")
    _print_record(found.record, marker="> " if context else "")
    if found.record.summary_ref_id:
        console.print(f"[dim]summary: {found.record.summary_ref_id}[/dim]")
    for record in [r for r in found.neighbours if (r.timestamp, r.id) > here]:
        _print_record(record, marker="  ")


@messages_app.command("delete")
def delete_command(
    ctx: typer.Context,
    record_ids: list[int] = typer.Argument(None, help="Ids of the messages to delete."),
    platform: str = typer.Option(None, "--platform", help="Every message of this platform …"),
    channel: str = typer.Option(None, "--channel", help="… in this channel …"),
    person: str = typer.Option(None, "--person", help="… by this person …"),
    since: str = typer.Option(None, "--since", help="… at or after this date (ISO-8601) …"),
    before: str = typer.Option(None, "--before", help="… before this date (ISO-8601)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only show what would be deleted."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    as_json: bool = typer.Option(False, "--json", help="Print the preview or the result as JSON."),
) -> None:
    """Delete messages for good: by id, or in bulk by platform, channel, person and date range.

    The text leaves every store (row, keyword index, vectors, earlier versions in the audit log,
    summaries quoting it); the audit log keeps only the fact that it was deleted.
    """
    from app.core.jsonl import parse_timestamp
    from app.services.deletion_service import MessageSelector

    svc = services(ctx)
    bulk = any(v for v in (platform, channel, person, since, before))
    if bool(record_ids) == bulk:
        console.print(
            "[red]error:[/red] name message ids, or filters (--platform/--channel/--person/--since/"
            "--before), not both and not neither"
        )
        raise typer.Exit(2)
    deletion = svc.memory.deletion
    if bulk:
        selector = guarded(
            lambda: MessageSelector(
                platform=platform,
                channel=channel,
                person=person,
                since=parse_timestamp(since) if since else None,
                until=parse_timestamp(before) if before else None,
            )
        )
        plan = guarded(lambda: deletion.plan(selector))
        count = plan.count
        if as_json and dry_run:
            print_json({**plan.to_dict(), "dry_run": True})
            return
        if not as_json:
            _print_plan(plan.to_dict())
    else:
        records = [guarded(lambda i=i: svc.memory.get(i, reveal_archived=True)) for i in record_ids]
        count = len(records)
        if not as_json:
            for record in records:
                _print_record(record)
        if dry_run:
            if as_json:
                print_json({"count": count, "ids": [r.id for r in records], "dry_run": True})
            return
    if dry_run or count == 0:
        if not as_json:
            typer.echo("nothing deleted" + (" (dry run)" if dry_run else ""))
        return
    if not yes and not typer.confirm(f"Delete {count} message(s) for good?", default=False):
        typer.echo("nothing deleted")
        raise typer.Exit(1)
    if bulk:
        report = guarded(lambda: deletion.delete_matching(selector, actor="cli"))
    else:
        report = guarded(lambda: deletion.delete(record_ids, actor="cli"))
    if as_json:
        print_json(report.to_dict())
        return
    derived = report.derived
    typer.echo(
        f"deleted {len(report.deleted)} message(s); summaries rewritten {derived.get('regenerated', 0)}, "
        f"removed {derived.get('removed', 0)}; insights removed {derived.get('insightsRemoved', 0)}"
    )


def _print_plan(plan: dict[str, Any]) -> None:
    console.print(
        f"[bold]{plan['count']}[/bold] message(s) match, {plan['first'] or '?'} → {plan['last'] or '?'}"
    )
    for item in plan["byChannel"]:
        console.print(f"  #{escape(item['channel'] or '-')}: {item['count']}")
    for item in plan["sample"]:
        console.print(
            f"  [dim]#{item['id']} {item['timestamp']} {escape(item['person'])}:[/dim] "
            + escape(item["preview"])
        )
