"""`strata brief [--since WHEN] [--max-tokens N] [--json]`: the wake-up brief in the terminal."""

from __future__ import annotations

import typer

from app.cli.context import guarded, print_json, services

# The service's default (app/services/brief_service.py), repeated here because command modules
# import nothing heavy at start-up (the service module pulls in SQLAlchemy).
DEFAULT_MAX_TOKENS = 1500


def brief_command(
    ctx: typer.Context,
    since: str = typer.Option(None, "--since", help="What changed since this ISO time (default: 24 h ago)."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, "--max-tokens", help="Size budget (≈4 chars/token)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """What an assistant should know to start: open loops, decisions, deadlines, who is active, news."""
    from app.core.search.filters import parse_bound

    svc = services(ctx)
    assert svc.brief is not None
    result = guarded(
        lambda: svc.brief.brief(since=parse_bound(since, end_of_day=False), max_tokens=max_tokens)
    )
    if as_json:
        print_json(result.to_dict())
        return
    typer.echo(result.to_markdown())
