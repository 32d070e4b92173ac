"""`strata mcp` (serve MCP over stdio) and `strata mcp install` (register Strata in an MCP client)."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.context import console, guarded, services, start_logging, state
from app.mcp.install import CLIENTS, install, snippet

mcp_app = typer.Typer(
    help="The MCP server for agents (Claude Desktop, Cursor, ...).", invoke_without_command=True
)


PROFILE_HELP = "Tools to list: essential (small, the default setting) or full (every tool)."


@mcp_app.callback()
def mcp_command(
    ctx: typer.Context,
    profile: str = typer.Option(None, "--profile", help=PROFILE_HELP + " Default: api.mcp_profile."),
) -> None:
    """With no sub-command, serve the MCP tools over stdin/stdout (what MCP clients launch)."""
    if ctx.invoked_subcommand is not None:
        return
    if profile not in (None, "essential", "full"):
        console.print(f"[red]error:[/red] unknown profile {profile!r}; use essential or full")
        raise typer.Exit(2)
    from app.mcp.server import run_stdio  # the MCP SDK: only when serving

    # stdout carries the protocol: everything human goes to stderr (console is stderr), log
    # lines too (MCP clients keep a server's stderr in their own logs).
    start_logging(ctx, host=True)
    run_stdio(services(ctx), profile)


@mcp_app.command("install")
def install_command(
    ctx: typer.Context,
    client: str = typer.Option(..., "--client", help=f"One of: {', '.join(CLIENTS)}."),
    print_only: bool = typer.Option(False, "--print", help="Print the config entry instead of writing it."),
    config_file: Path = typer.Option(
        None, "--config-file", help="Client config file (default: its usual place)."
    ),
    profile: str = typer.Option(None, "--profile", help=PROFILE_HELP + " Default: the setting."),
) -> None:
    """Add Strata to an MCP client's config file, keeping its other servers."""
    from app.core.paths import default_data_dir
    from app.core.settings import load_settings

    data_dir = state(ctx).data_dir or guarded(lambda: load_settings(None).data_dir) or default_data_dir()
    if profile not in (None, "essential", "full"):
        console.print(f"[red]error:[/red] unknown profile {profile!r}; use essential or full")
        raise typer.Exit(2)
    result = guarded(
        lambda: install(client, data_dir, config_path=config_file, write=not print_only, profile=profile)
    )
    if print_only:
        typer.echo(snippet(result.entry))
        console.print(f"[dim]paste into {result.config_path}[/dim]")
        return
    verb = "updated" if result.replaced else "added"
    console.print(f"{verb} the 'strata' MCP server in {result.config_path}; restart {client} to load it")
