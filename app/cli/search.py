"""`strata search`: hybrid search from the terminal, one query or a JSON-lines batch."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, services
from app.core.clock import iso
from app.core.errors import InvalidInput
from app.core.search.filters import filters_from, sources_from

if TYPE_CHECKING:
    from app.core.domain import SearchHit
    from app.core.search.understanding import SearchOutcome


def render(hits: list[SearchHit], empty: str = "[dim]no results[/dim]") -> None:
    table = Table(show_lines=False, expand=True)
    for column in ("#", "when", "where", "who", "tier", "text"):
        table.add_column(column, overflow="fold")
    for i, hit in enumerate(hits, 1):
        where = f"{hit.platform or ''}/{hit.channel or ''}" if hit.kind == "message" else hit.kind
        # Message text is data: `[bold]` or `[media omitted]` in a message must print as written.
        table.add_row(
            str(i),
            (iso(hit.timestamp) or "")[:16],
            escape(where),
            escape(hit.person or ""),
            hit.tier or "",
            escape(hit.content[:300]),
        )
    console.print(table if hits else empty)


def render_outcome(outcome: SearchOutcome) -> None:
    """The hits, what the query was understood as, and "no close match" when the floor hid all."""
    understood = outcome.understood
    notes: list[str] = []
    if understood.date is not None:
        span = f"{(iso(understood.date.since) or '…')[:10]} → {(iso(understood.date.until) or '…')[:10]}"
        if understood.date.applied:
            notes.append(f"dates: {understood.date.phrase!r} ({span})")
        else:
            notes.append(
                f"nothing matched {understood.date.phrase!r} ({span}); showing matches from any time"
            )
    if understood.people:
        notes.append("people: " + ", ".join(understood.people))
    if notes:
        console.print("[dim]understood: " + " · ".join(notes) + "[/dim]")
    if outcome.no_close_match:
        render([], empty="[dim]no close match[/dim] (use --loose to see the nearest results anyway)")
    else:
        render(outcome.hits)


def outcome_json(query: str, outcome: SearchOutcome) -> dict[str, Any]:
    return {"query": query, "hits": [h.to_dict() for h in outcome.hits], **outcome.to_dict()}


def search_command(
    ctx: typer.Context,
    query: str = typer.Argument(None, help="What to look for; date phrases like 'last week' become filters."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, max=200),
    platform: list[str] = typer.Option(None, "--platform", help="Only these platforms (repeatable)."),
    channel: list[str] = typer.Option(None, "--channel", help="Only these channels (repeatable)."),
    person: list[str] = typer.Option(None, "--person", help="Only these people (repeatable)."),
    since: str = typer.Option(None, "--since", help="ISO date/time or Unix ms."),
    until: str = typer.Option(None, "--until", help="ISO date/time or Unix ms (a date means end of day)."),
    include_documents: bool = typer.Option(
        False, "--documents", help="Also search knowledge-base documents."
    ),
    include_insights: bool = typer.Option(False, "--insights", help="Also search insights."),
    loose: bool = typer.Option(
        False, "--loose", help="Show the nearest results even when none is a close match."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print hits as JSON."),
    batch: bool = typer.Option(
        False, "--batch", help="Read JSON lines {id, query, limit, filters…} from stdin."
    ),
) -> None:
    """Search messages (and summaries/documents/insights) with vector + keyword hybrid ranking."""
    svc = services(ctx)
    if batch:
        _run_batch(svc)
        return
    if not query:
        raise typer.BadParameter("give a QUERY or use --batch")
    filters = guarded(
        lambda: filters_from(
            {"platform": platform, "channel": channel, "person": person, "since": since, "until": until}
        )
    )
    include = sources_from(documents=include_documents, insights=include_insights)
    outcome = guarded(lambda: svc.memory.search_outcome(query, filters, limit, include=include, loose=loose))
    if as_json:
        print_json(outcome_json(query, outcome))
    else:
        render_outcome(outcome)


def _run_batch(svc: Any) -> None:
    """One output line per input line, in order; a bad line yields {"id", "error"} and the batch goes on.

    Each output line carries `query` and `understood` besides `hits` (and `no_close_match`)."""
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        ident: Any = number
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not data.get("query"):
                raise InvalidInput("each line needs a JSON object with a non-empty 'query'")
            ident = data.get("id", number)
            filters = filters_from(data.get("filters") or data)
            outcome = svc.memory.search_outcome(
                str(data["query"]), filters, int(data.get("limit", 10)), loose=bool(data.get("loose", False))
            )
            print_json({"id": ident, **outcome_json(str(data["query"]), outcome)})
        except (json.JSONDecodeError, InvalidInput, ValueError, TypeError) as exc:
            print_json({"id": ident, "error": str(exc)})
