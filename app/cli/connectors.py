"""`strata connectors list|add|remove|test|sync` plus identity: `contacts`, `suggest`, `merge`, `unmerge`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from app.cli.context import console, guarded, print_json, services
from app.core.errors import InvalidInput
from connectors.base import DEFAULT_INTERVAL_MINUTES

if TYPE_CHECKING:
    from app.services.connector_service import ConnectorService

connectors_app = typer.Typer(
    help="Live connectors (Slack, Discord, Telegram) and merged contacts.", no_args_is_help=True
)
LIST_OPTIONS = {"channels", "guilds", "chats", "dm_users"}


def _svc(ctx: typer.Context) -> ConnectorService:
    svc = services(ctx).connectors
    assert svc is not None, "bootstrap always builds the connector service"
    return svc


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidInput(
                f"option {pair!r} is not KEY=VALUE", hint="e.g. --option channels=general,random"
            )
        if key in LIST_OPTIONS:
            options[key] = [v.strip() for v in value.split(",") if v.strip()]
        elif value.isdigit():
            options[key] = int(value)
        else:
            options[key] = value
    return options


def _parse_identities(items: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        platform, sep, person = item.partition(":")
        if not sep or not platform or not person:
            raise InvalidInput(
                f"{item!r} is not PLATFORM:PERSON", hint="e.g. 'slack:Bob Stone' discord:bobstone"
            )
        pairs.append((platform, person))
    return pairs


@connectors_app.command("list")
def list_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Configured connectors with their last sync and error."""
    states = guarded(lambda: _svc(ctx).list_all())
    if as_json:
        print_json({"connectors": [s.to_dict() for s in states], "kinds": _svc(ctx).kinds()})
        return
    if not states:
        console.print("no connectors yet; add one with `strata connectors add slack|discord|telegram`")
        return
    for s in states:
        data = s.to_dict()
        error = f"  [red]{data['last_error_code']}[/red]" if s.status == "error" else ""
        console.print(
            f"[bold]{escape(s.id)}[/bold] ({s.kind}) {s.status}, every {s.interval_minutes} min, "
            f"last sync {data['last_sync_at'] or 'never'}, {s.messages_total} messages{error}"
        )


@connectors_app.command("add")
def add_command(
    ctx: typer.Context,
    kind: str = typer.Argument(..., help="slack, discord or telegram"),
    token: str = typer.Option(
        None,
        "--token",
        envvar="STRATA_CONNECTOR_TOKEN",
        help="Platform token (prompted, hidden, when omitted).",
    ),
    connector_id: str = typer.Option(None, "--id", help="Name of this connector (default: the kind)."),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE, e.g. channels=general,random"),
    interval: int = typer.Option(
        DEFAULT_INTERVAL_MINUTES, "--interval", help="Scheduled sync every N minutes."
    ),
    test: bool = typer.Option(True, "--test/--no-test", help="Check the token with the platform first."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Add a connector; the token goes to the OS keyring (or the private secrets file), never to settings."""
    svc = _svc(ctx)
    if not token:
        token = typer.prompt(f"{kind} token", hide_input=True)
    state, identity = guarded(
        lambda: svc.add(
            kind,
            token,
            connector_id=connector_id,
            options=_parse_options(option),
            interval_minutes=interval,
            test=test,
        )
    )
    if as_json:
        print_json({"connector": state.to_dict(), "account": identity.account if identity else None})
        return
    who = (
        f" as {identity.account}" + (f" in {identity.workspace}" if identity.workspace else "")
        if identity
        else ""
    )
    console.print(f"added [bold]{state.id}[/bold]{who}; token stored in {svc.secrets.backend_name} store")


@connectors_app.command("remove")
def remove_command(
    ctx: typer.Context, connector_id: str, as_json: bool = typer.Option(False, "--json")
) -> None:
    """Forget a connector and its token (messages already synced stay)."""
    removed = guarded(lambda: _svc(ctx).remove(connector_id))
    if as_json:
        print_json({"removed": removed, "id": connector_id})
    else:
        console.print(f"removed {connector_id}" if removed else f"no connector named {connector_id}")
    if not removed:
        raise typer.Exit(1)


@connectors_app.command("test")
def test_command(
    ctx: typer.Context, connector_id: str, as_json: bool = typer.Option(False, "--json")
) -> None:
    """Check a connector's token with its platform."""
    identity = guarded(lambda: _svc(ctx).test(connector_id))
    if as_json:
        print_json({"ok": True, "account": identity.account, "workspace": identity.workspace})
    else:
        console.print(f"ok: {identity.account}" + (f" in {identity.workspace}" if identity.workspace else ""))


@connectors_app.command("sync")
def sync_command(
    ctx: typer.Context,
    connector_id: str = typer.Argument(None, help="Connector to sync (default: all enabled)."),
    limit: int = typer.Option(
        None, "--limit", help="First sync: newest N per channel; later: at most N now."
    ),
    full: bool = typer.Option(
        False, "--full", help="Ignore the cursor and fetch again (duplicates are skipped)."
    ),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Fetch new messages now."""
    svc = _svc(ctx)
    if connector_id:
        reports = [guarded(lambda: svc.sync(connector_id, limit=limit, full=full))]
    else:
        reports = guarded(lambda: svc.sync_all(limit=limit))
    if as_json:
        print_json({"reports": [r.to_dict() for r in reports]})
    else:
        for r in reports:
            line = f"{r.connector_id}: imported {r.imported}, updated {r.updated}, duplicates {r.duplicates}"
            line += f", deleted {r.deleted}"
            # Platform errors and warnings quote channel names and server text: printed as written.
            error = f"  [red]{r.error_code}: {escape(r.error)}[/red]" if r.error else ""
            console.print(escape(line) + error)
            for warning in r.warnings:
                console.print(f"  [yellow]warning[/yellow]: {escape(warning)}")
    if any(not r.ok for r in reports):
        raise typer.Exit(1)


@connectors_app.command("contacts")
def contacts_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Merged contacts (one person across platforms)."""
    contacts = guarded(lambda: _svc(ctx).identities.contacts())
    if as_json:
        print_json({"contacts": [c.to_dict() for c in contacts]})
        return
    for c in contacts:
        names = ", ".join(f"{i.platform}:{i.person}" for i in c.identities)
        console.print(f"[bold]{c.id}[/bold] {escape(c.display_name)}: {escape(names)}")


@connectors_app.command("suggest")
def suggest_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Names that look like the same person on different platforms (same e-mail or name)."""
    suggestions = guarded(lambda: _svc(ctx).identities.suggestions())
    if as_json:
        print_json({"suggestions": [s.to_dict() for s in suggestions]})
        return
    for s in suggestions:
        args = " ".join(f"'{i.platform}:{i.person}'" for i in s.identities)
        console.print(escape(f"{s.display_name} ({s.reason}): strata connectors merge {args}"))


@connectors_app.command("merge")
def merge_command(
    ctx: typer.Context,
    identities: list[str] = typer.Argument(..., help="PLATFORM:PERSON, two or more"),
    name: str = typer.Option(None, "--name", help="Display name of the contact."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Merge names from several platforms into one contact; search by any name finds them all."""
    pairs = guarded(lambda: _parse_identities(identities))
    contact = guarded(lambda: _svc(ctx).identities.merge(pairs, name))
    if as_json:
        print_json({"contact": contact.to_dict()})
    else:
        shown = f"contact {contact.id}: {contact.display_name} ({len(contact.identities)} names)"
        console.print(escape(shown))


@connectors_app.command("unmerge")
def unmerge_command(
    ctx: typer.Context, contact_id: int, as_json: bool = typer.Option(False, "--json")
) -> None:
    """Split a contact back into separate names."""
    removed = guarded(lambda: _svc(ctx).identities.unmerge(contact_id))
    if as_json:
        print_json({"removed": removed, "id": contact_id})
    elif not removed:
        console.print(f"no contact {contact_id}")
    if not removed:
        raise typer.Exit(1)
