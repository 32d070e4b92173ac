"""`strata insights generate|list|show|favorite|brief [--json]`: insights from the terminal (the
lifecycle commands done / dismiss / snooze / reopen / me are in insights_lifecycle)."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, progress_bar, services
from app.cli.insights_lifecycle import add_lifecycle_commands, resolve_id
from app.core.clock import iso

insights_app = typer.Typer(help="Decisions, action items, deadlines, open questions … found in your chats.")

JSON = typer.Option(False, "--json", help="Print JSON instead of a table.")


@insights_app.command("generate")
def generate(
    ctx: typer.Context,
    full: bool = typer.Option(
        False, "--full", help="Re-read every conversation, not only those with new messages."
    ),
    as_json: bool = JSON,
) -> None:
    """Extract insights from conversations that received new messages since the last run."""
    svc = services(ctx)
    with progress_bar("analysing conversations", None, enabled=not as_json) as update:
        report = guarded(lambda: svc.insights.generate(full=full, progress=lambda d, t: update(d, t)))
    if as_json:
        print_json(report.to_dict())
        return
    console.print(
        f"{report.groups_processed}/{report.groups_total} conversations analysed, "
        f"{report.created} new, {report.updated} updated, {report.unchanged} unchanged "
        f"(extractor: {', '.join(report.extractors) or 'none'})"
    )
    for notice in report.notices:
        console.print(f"[yellow]warning:[/yellow] {notice}; rules were used (see `strata llm usage`)")


@insights_app.command("list")
def list_insights(
    ctx: typer.Context,
    sort: str = typer.Option("score", help="score, value, recent, due, importance or urgency."),
    label: str = typer.Option(None, help="Only this taskLabel (bug_report, feature_request, …)."),
    importance: str = typer.Option(None, help="critical, high, medium or low."),
    state: str = typer.Option(None, help="active or dormant."),
    kind: str = typer.Option(None, help="decision, action_item, deadline, question, blocker or meeting."),
    status: str = typer.Option(None, help="open or resolved."),
    lifecycle: str = typer.Option(
        None, "--lifecycle", help="open (default), done, dismissed, snoozed or all."
    ),
    query: str = typer.Option(None, "--query", "-q", help="Search insights by words and meaning instead."),
    limit: int = typer.Option(20, help="How many to show."),
    as_json: bool = JSON,
) -> None:
    """Insights ranked by value score × weight (favorites and recent views rank higher)."""
    svc = services(ctx)
    if query:
        items = guarded(lambda: svc.insights.search(query, limit))
    else:
        items = guarded(
            lambda: svc.insights.list_insights(
                sort=sort,
                label=label,
                importance=importance,
                state=state,
                kind=kind,
                status=status,
                limit=limit,
                lifecycle_state=lifecycle,
            )
        )
    if as_json:
        print_json([r.to_dict(full=False) for r in items])
        return
    table = Table(expand=True)
    for column in ("rank", "id", "kind", "title", "importance", "due", "status", "score"):
        table.add_column(column, overflow="fold")
    for r in items:
        d = r.insight.draft
        star = " ★" if r.insight.weights.favorite else ""
        rank = str(r.insight.weights.current_event_rank or "")
        due = (iso(d.due_at) or "")[:10]
        table.add_row(
            rank,
            r.id[:8],
            d.kind.value,
            escape(d.title),
            d.importance.value,
            due,
            r.insight.lifecycle,
            f"{r.score:.3f}{star}",
        )
    console.print(table if items else "no insights yet: run `strata insights generate`")


@insights_app.command("show")
def show(
    ctx: typer.Context,
    insight_id: str = typer.Argument(..., help="Id (or its first 8 characters)."),
    as_json: bool = JSON,
) -> None:
    """One insight with details, timeline and evidence (counts as a view)."""
    svc = services(ctx)
    r = guarded(lambda: svc.insights.get(resolve_id(svc, insight_id)))
    if as_json:
        print_json(r.to_dict())
        return
    d = r.insight.draft
    console.print(
        f"[bold]{escape(d.title)}[/bold]  "
        f"({d.kind.value}, {d.importance.value}/{d.urgency.value}, {escape(d.task_label)})"
    )
    # Titles, descriptions and details quote messages: escaped, never read as Rich markup.
    owner = f"owner {d.owner} · " if d.owner else ""
    console.print(escape(f"{owner}{r.insight.lifecycle} · {d.platform}/{d.channel}"))
    console.print(escape(d.description))
    for line in d.details:
        console.print(f"  • {escape(line)}")
    for event in d.timeline:
        console.print(
            f"  {(iso(event.at) or '')[:16]}  {escape(event.event)}  "
            f"[dim]{escape(event.message_id or '')}[/dim]"
        )
    if r.insight.lifecycle_set_at is not None:
        console.print(f"  {(iso(r.insight.lifecycle_set_at) or '')[:16]}  you set it {r.insight.lifecycle}")
    console.print(f"evidence: {escape(', '.join(d.evidence))}")
    console.print(
        f"score {r.score:.3f} = value {r.value.total:.3f} × weight {r.multiplier:.2f}; {r.state}, {r.trend}"
    )


@insights_app.command("favorite")
def favorite(
    ctx: typer.Context,
    insight_id: str = typer.Argument(..., help="Id (or its first 8 characters)."),
    remove: bool = typer.Option(False, "--remove", help="Unfavorite instead."),
    as_json: bool = JSON,
) -> None:
    """Favorite an insight: +0.10 value and a ×1.5 weight boost for 7 days."""
    svc = services(ctx)
    r = guarded(lambda: svc.insights.favorite(resolve_id(svc, insight_id), not remove))
    if as_json:
        print_json(r.to_dict(full=False))
        return
    console.print(
        f"{'unfavorited' if remove else 'favorited'}: {escape(r.insight.draft.title)} (score {r.score:.3f})"
    )


@insights_app.command("brief")
def brief(
    ctx: typer.Context,
    me: list[str] = typer.Option(
        None, "--me", help="Names you go by (default: insights.identities setting)."
    ),
    limit: int = typer.Option(20, help="At most this many per section."),
    as_json: bool = JSON,
) -> None:
    """Open loops: your open action items, what you wait on from others, questions to you unanswered."""
    svc = services(ctx)
    loops = guarded(lambda: svc.insights.brief(limit, me or None))
    if as_json:
        print_json(loops.to_dict())
        return
    sections = (
        ("Your open action items", loops.my_actions),
        ("Waiting on others", loops.waiting_on),
        ("Questions to you, unanswered", loops.questions_for_me),
    )
    for heading, items in sections:
        console.print(f"[bold]{heading}[/bold] ({len(items)})")
        for r in items:
            d = r.insight.draft
            due = f" — due {(iso(d.due_at) or '')[:10]}" if d.due_at else ""
            console.print(
                f"  {r.id[:8]}  {escape(d.title)}{due}  [dim]{escape(f'{d.platform}/{d.channel}')}[/dim]"
            )
    if loops.empty:
        console.print("nothing open: no loops found for " + escape(", ".join(loops.identities)))


add_lifecycle_commands(insights_app)
