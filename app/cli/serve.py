"""`strata serve` (REST API + MCP over HTTP on loopback) and `strata token` (print the API token)."""

from __future__ import annotations

import typer
from rich.markup import escape

from app.cli.context import console, guarded, services, start_logging, state


def serve_command(
    ctx: typer.Context,
    host: str = typer.Option(None, "--host", help="Interface to bind (default 127.0.0.1)."),
    port: int = typer.Option(None, "--port", min=1, max=65535, help="TCP port (default 3415)."),
    allow_remote: bool = typer.Option(
        False, "--allow-remote", help="Allow a non-loopback --host. Exposes your memory to the network."
    ),
) -> None:
    """Serve the REST API under /api and the MCP server at /mcp until Ctrl+C."""
    # FastAPI, uvicorn, the MCP SDK and the scheduler: imported only when serving.
    from app.api.app import create_app
    from app.api.security import HostPolicy
    from app.api.server import check_bind_host, serve
    from app.services.scheduling import JobHost

    settings = guarded(state(ctx).settings)
    # A server: its log lines (uvicorn's, the jobs', the search workers') also go to stderr.
    start_logging(ctx, host=True)
    bind_host = host or settings.api.host
    bind_port = port or settings.api.port
    warning = guarded(lambda: check_bind_host(bind_host, allow_remote=allow_remote))
    if warning:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    svc = services(ctx)
    app = guarded(
        lambda: create_app(
            svc, policy=HostPolicy.for_bind(bind_host), search_workers=settings.api.search_workers
        )
    )
    shown = f"[{bind_host}]" if ":" in bind_host else bind_host
    console.print(f"Strata API on http://{shown}:{bind_port}/api (docs: /api/docs, MCP: /mcp)")
    console.print("[dim]Authorization: Bearer $(strata token)[/dim]")
    # `serve` is the headless host of the scheduler: forgetting, connector syncs, insights.
    jobs = JobHost(svc)
    job_ids = jobs.start()
    console.print(f"[dim]scheduled jobs: {', '.join(job_ids) or 'none'}[/dim]")
    try:
        serve(app, bind_host, bind_port, allow_remote=allow_remote, log_level=settings.log_level)
    finally:
        jobs.stop()


def token_command(ctx: typer.Context) -> None:
    """Print the local API token (created on first use, stored with 0600 permissions)."""
    from app.api.security import load_or_create_token
    from app.core.settings import load_settings

    settings = guarded(lambda: load_settings(state(ctx).data_dir))
    layout = settings.layout.ensure()
    typer.echo(guarded(lambda: load_or_create_token(layout.token_file)))
