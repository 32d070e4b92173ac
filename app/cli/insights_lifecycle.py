"""`strata insights done|dismiss|snooze|reopen ID` and `strata insights me NAME…`: closing loops and
telling Strata who you are, from the terminal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import typer

from app.cli.context import console, guarded, print_json, services
from app.core.clock import DAY_MS, datetime_to_ms, iso
from app.core.errors import InvalidInput

ID_ARG = typer.Argument(..., help="Id (or its first 8 characters).")
JSON = typer.Option(False, "--json", help="Print JSON instead of text.")


def resolve_id(svc: Any, given: str) -> str:
    """Accept the 8-character prefix the table shows (done and dismissed items too)."""
    if len(given) >= 36:
        return given
    found = svc.insights.list_insights(limit=500, lifecycle_state="all")
    matches = [r.id for r in found if r.id.startswith(given)]
    return matches[0] if len(matches) == 1 else given


def _set(ctx: typer.Context, insight_id: str, state: str, until: int | None, as_json: bool) -> None:
    svc = services(ctx)
    r = guarded(lambda: svc.insights.set_lifecycle(resolve_id(svc, insight_id), state, until))
    if as_json:
        print_json(r.to_dict(full=False))
        return
    when = f" until {(iso(r.insight.snoozed_until) or '')[:16]}" if r.insight.snoozed_until else ""
    console.print(f"{r.insight.lifecycle}{when}: {r.insight.draft.title}")


def _until(until: str | None, days: float | None, now_ms: int) -> int | None:
    if until and days:
        raise InvalidInput("give --until or --days, not both")
    if days is not None:
        return now_ms + int(days * DAY_MS)
    if until is None:
        return None
    try:
        at = datetime.fromisoformat(until)
    except ValueError as exc:
        raise InvalidInput(
            f"--until {until!r} is not a date", hint="use 2026-12-01 or 2026-12-01T09:00"
        ) from exc
    return datetime_to_ms(at if at.tzinfo else at.replace(tzinfo=UTC))


def add_lifecycle_commands(app: typer.Typer) -> None:
    @app.command("done")
    def done(ctx: typer.Context, insight_id: str = ID_ARG, as_json: bool = JSON) -> None:
        """Mark an insight done: it leaves the default list and the open-loops brief."""
        _set(ctx, insight_id, "done", None, as_json)

    @app.command("dismiss")
    def dismiss(ctx: typer.Context, insight_id: str = ID_ARG, as_json: bool = JSON) -> None:
        """Dismiss an insight that is not worth acting on (it leaves the default list)."""
        _set(ctx, insight_id, "dismissed", None, as_json)

    @app.command("reopen")
    def reopen(ctx: typer.Context, insight_id: str = ID_ARG, as_json: bool = JSON) -> None:
        """Put a done, dismissed or snoozed insight back on the list."""
        _set(ctx, insight_id, "open", None, as_json)

    @app.command("snooze")
    def snooze(
        ctx: typer.Context,
        insight_id: str = ID_ARG,
        until: str = typer.Option(None, "--until", help="Date (or date-time, UTC) it comes back."),
        days: float = typer.Option(None, "--days", help="Or: come back in this many days."),
        as_json: bool = JSON,
    ) -> None:
        """Hide an insight until a date; it comes back open by itself."""
        svc = services(ctx)
        at = guarded(lambda: _until(until, days, svc.clock.now_ms()))
        if at is None:
            at = svc.clock.now_ms() + int(timedelta(days=1).total_seconds() * 1000)  # default: tomorrow
        _set(ctx, insight_id, "snoozed", at, as_json)

    @app.command("me")
    def me(
        ctx: typer.Context,
        names: list[str] = typer.Argument(None, help="Names and handles you go by; none shows the current."),
        as_json: bool = JSON,
    ) -> None:
        """Tell Strata who you are in your chats, so "my commitments" and "questions to me" are right."""
        svc = services(ctx)
        known = guarded(lambda: svc.insights.set_me(names)) if names else svc.insights.me()
        if as_json:
            print_json({"names": list(known)})
        elif known:
            console.print("you go by: " + ", ".join(known))
        else:
            console.print('no names yet: tell Strata with `strata insights me alex "Alex Kim"`')
