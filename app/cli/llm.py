"""`strata llm status|set-key|clear-key|usage`: the optional OpenAI-compatible LLM, its key and its usage."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from app.cli.context import console, guarded, print_json, state

if TYPE_CHECKING:
    from app.core.settings import Settings
    from app.services.llm import LLMKeys, UsageReport

llm_app = typer.Typer(
    help="The optional OpenAI-compatible LLM for summaries and insights, and its API key.",
    no_args_is_help=True,
)


def _open(ctx: typer.Context) -> tuple[Settings, LLMKeys]:
    # Only the settings and the secret store: no database or model is opened for a key.
    from app.core.secrets import open_secret_store
    from app.core.settings import load_settings
    from app.services.llm import LLMKeys

    settings = guarded(lambda: load_settings(state(ctx).data_dir))
    return settings, LLMKeys(open_secret_store(settings.layout.secrets_file))


def _source_text(source: str) -> str:
    if source.startswith("env:"):
        return f"from the environment ({source[4:]}, overrides any stored key)"
    if source == "store":
        return "stored"
    return "none (fine for local servers that need no key)"


@llm_app.command("status")
def status_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Whether the LLM is enabled, where it points, and where its key comes from (never the key)."""
    settings, keys = _open(ctx)
    status = guarded(keys.status)
    llm = settings.llm
    if as_json:
        print_json(
            {"enabled": llm.enabled, "baseUrl": llm.base_url, "model": llm.model, "key": status.to_dict()}
        )
        return
    console.print(f"LLM {'enabled' if llm.enabled else 'disabled'} ([llm] enabled in settings.toml)")
    console.print(f"endpoint {llm.base_url or 'https://api.openai.com/v1'}, model {llm.model}")
    console.print(f"API key: {_source_text(status.source)}; stored keys live in the {status.backend} store")


@llm_app.command("set-key")
def set_key_command(
    ctx: typer.Context,
    from_stdin: bool = typer.Option(False, "--stdin", help="Read the key from standard input."),
) -> None:
    """Store the API key in the OS keyring (or the private secrets file); prompted, hidden, by default."""
    _, keys = _open(ctx)
    key = sys.stdin.read() if from_stdin else typer.prompt("LLM API key", hide_input=True)
    status = guarded(lambda: keys.set(key))
    console.print(f"key stored in the {status.backend} store; it is used from the next LLM call")
    if status.source.startswith("env:"):
        console.print(f"[yellow]note:[/yellow] {status.source[4:]} is set and overrides the stored key")


@llm_app.command("clear-key")
def clear_key_command(ctx: typer.Context) -> None:
    """Remove the stored API key (keys in the environment are not touched)."""
    _, keys = _open(ctx)
    removed = guarded(keys.clear)
    console.print("stored key removed" if removed else "no key was stored")
    source = guarded(keys.status).source
    if source.startswith("env:"):
        console.print(f"[yellow]note:[/yellow] {source[4:]} is still set and is what calls use")


@llm_app.command("usage")
def usage_command(
    ctx: typer.Context,
    days: int = typer.Option(30, "--days", min=1, max=3650, help="How many days of history to show."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Tokens and cost used today against the daily caps, and per day, feature and model."""
    # Only the settings and the database: no vector index or embedding model is opened for this.
    from app.core.clock import SystemClock
    from app.core.storage.db import Database
    from app.core.storage.migrate import migrate
    from app.services.llm import usage_report

    settings, _ = _open(ctx)

    def report() -> UsageReport:
        db = Database(settings.layout.ensure().database)
        try:
            migrate(db)
            return usage_report(settings, db, SystemClock(), days=days)
        finally:
            db.dispose()

    usage = guarded(report)
    if as_json:
        print_json(usage.to_dict())
        return
    print_usage(usage)


def print_usage(usage: UsageReport) -> None:
    from rich.table import Table

    cap = usage.daily_token_cap
    cost_cap = f" of ${usage.daily_cost_cap:.2f}" if usage.daily_cost_cap else ""
    console.print(
        f"today ({usage.day}, UTC): {usage.tokens_today:,} of {cap:,} tokens "
        f"({100 * usage.tokens_today / cap if cap else 100:.0f}%), ${usage.cost_today:.4f}{cost_cap}"
        f"; LLM {'enabled' if usage.enabled else 'disabled'}, model {usage.model}"
    )
    if usage.cap_reached_today:
        console.print(
            "[yellow]the daily cap was reached today:[/yellow] calls were refused (nothing sent) and "
            "rule-based summaries and insights were used; raise [llm] daily_token_cap to allow more"
        )
    if not usage.lines:
        console.print("no LLM calls recorded")
        return
    table = Table()
    for column in ("day", "feature", "model", "calls", "capped", "errors", "tokens", "cost $", "redacted"):
        table.add_column(column, justify="right" if column not in ("day", "feature", "model") else "left")
    for line in usage.lines:
        table.add_row(
            line.day, line.feature, line.model, str(line.calls), str(line.capped), str(line.errors),
            f"{line.prompt_tokens + line.completion_tokens:,}", f"{line.cost:.4f}", str(line.redactions),
        )  # fmt: skip
    console.print(table)
