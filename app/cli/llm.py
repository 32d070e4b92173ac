"""`strata llm status|set-key|clear-key`: the optional OpenAI-compatible LLM and its API key."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from app.cli.context import console, guarded, print_json, state

if TYPE_CHECKING:
    from app.core.settings import Settings
    from app.services.llm import LLMKeys

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
