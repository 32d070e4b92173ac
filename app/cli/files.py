"""`strata files`: list, show, search, refresh and edit the markdown memory files."""

from __future__ import annotations

import os
import shlex
import subprocess

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, services

files_app = typer.Typer(
    help="Memory files: readable, editable markdown pages about your people, chats, channels and projects.",
    no_args_is_help=True,
)


@files_app.command("list")
def list_command(
    ctx: typer.Context,
    folder: str = typer.Option(
        None, "--dir", help="Only this folder: people, chats, channels, projects, notes, strategy."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the memory files (run `strata files refresh` first to generate them)."""
    files = guarded(lambda: services(ctx).files.list_files(folder))
    if as_json:
        print_json({"files": files, "total": len(files)})
        return
    if not files:
        console.print("[dim]no memory files yet; run `strata files refresh`[/dim]")
        return
    table = Table(expand=True)
    for column in ("path", "title", "size"):
        table.add_column(column, overflow="fold")
    for f in files:
        table.add_row(escape(f["path"]), escape(f["title"]), f"{f['size']:,}")
    console.print(table)


@files_app.command("show")
def show_command(
    ctx: typer.Context,
    path: str = typer.Argument(..., help="e.g. people/anna.md (the .md may be left out)"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON with the text and its version."),
) -> None:
    """Print one memory file."""
    found = guarded(lambda: services(ctx).files.read(path))
    if as_json:
        print_json({"path": found.path, "title": found.title, "version": found.version, "text": found.text})
    else:
        typer.echo(found.text, nl=not found.text.endswith("\n"))


@files_app.command("search")
def search_command(
    ctx: typer.Context,
    query: str = typer.Argument(..., help='Words to find (case-insensitive); "quoted phrases" stay whole.'),
    folder: str = typer.Option(None, "--dir", help="Only this folder."),
    limit: int = typer.Option(20, "--limit", "-n", min=1, max=200),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Full-text search over the memory files; edits made in any editor are found at once."""
    hits = guarded(lambda: services(ctx).files.search(query, folder=folder, limit=limit))
    if as_json:
        print_json({"query": query, "hits": [h.to_dict() for h in hits]})
        return
    if not hits:
        console.print("[dim]no matching files[/dim]")
    for hit in hits:
        typer.echo(f"{hit.path}  ({hit.title})")
        for line, text in hit.snippets:
            typer.echo(f"  {line:>4}: {text}")


@files_app.command("refresh")
def refresh_command(
    ctx: typer.Context,
    path: str = typer.Argument(None, help="Only this page (e.g. people/anna.md); default: every page."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Regenerate the pages; your text outside the generated block is kept byte for byte."""
    report = guarded(lambda: services(ctx).files.refresh(path))
    if as_json:
        print_json(report.to_dict())
        return
    counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts.items())) or "nothing to do"
    console.print(f"{report.pages} page(s) in {report.seconds:.2f} s: {counts}")
    for left, reason in report.left_alone:
        why = (
            "you own it (user_owned or markers removed)"
            if reason == "user_owned"
            else "its markers are damaged"
        )
        console.print(f"[yellow]left alone[/yellow] {escape(left)}: {why}")
    for path_left in report.stale:
        console.print(
            f"[yellow]no longer generated[/yellow] {escape(path_left)} (delete it if you do not need it)"
        )
    for note in report.notes:
        console.print(f"[yellow]note[/yellow] {escape(note)}")


@files_app.command("edit")
def edit_command(
    ctx: typer.Context,
    path: str = typer.Argument(..., help="e.g. notes/ideas.md (created in notes/ and strategy/ if missing)"),
) -> None:
    """Open a memory file in $VISUAL or $EDITOR."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:  # before creating anything: a failed edit leaves no empty note behind
        _fail(
            "no editor set",
            "set $EDITOR (e.g. EDITOR=nano), or open the file under <data dir>/memory yourself",
        )
    target = guarded(lambda: services(ctx).files.editable_path(path))
    try:
        code = subprocess.call([*shlex.split(editor or ""), str(target)])
    except OSError as exc:
        _fail(f"could not start the editor {editor!r}: {exc}", "check $VISUAL / $EDITOR")
    raise typer.Exit(code)


def _fail(message: str, hint: str) -> None:
    console.print(f"[red]error:[/red] {escape(message)}")
    console.print(f"[dim]hint: {escape(hint)}[/dim]")
    raise typer.Exit(1)
