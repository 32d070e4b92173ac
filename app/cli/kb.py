"""`strata kb`: add, list, search, show and remove knowledge-base documents; personalization."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from app.cli.context import console, guarded, print_json, services
from app.core.clock import iso
from app.core.errors import StrataError

kb_app = typer.Typer(
    help="Knowledge base: your documents, parsed, chunked and searchable.", no_args_is_help=True
)


# What each progress stage counts: reading in the parser's units (pages, slides, rows or bytes).
_STAGES = {"parse": "reading", "embed": "embedding chunks", "store": "saving"}


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


@kb_app.command("add")
def add_command(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="Files to add (PDF, DOCX, PPTX, XLSX, CSV, TXT, MD, HTML, iWork)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON result per file instead of lines."),
) -> None:
    """Add files; each one is stored completely or not at all. Exit code 1 if any file failed."""
    knowledge = services(ctx).knowledge
    results: list[dict[str, Any]] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=as_json) as bar:
        overall = bar.add_task("documents", total=len(files))
        for path in files:
            step = bar.add_task(f"  {escape(path.name)}: reading", total=None)

            def report(stage: str, done: int, total: int, step: Any = step, name: str = path.name) -> None:
                verb = _STAGES.get(stage, stage)
                bar.update(step, description=f"  {escape(name)}: {verb}", completed=done, total=total or None)

            try:
                info = knowledge.add_file(path, progress=report)
            except KeyboardInterrupt:
                # Ctrl-C: an add stores nothing until its last step, and undoes that step if stopped.
                bar.console.print(f"[yellow]cancelled[/yellow]: nothing was stored for {escape(path.name)}")
                raise typer.Exit(130) from None
            except StrataError as exc:
                results.append(
                    {
                        "file": str(path),
                        "ok": False,
                        "error": exc.code,
                        "message": exc.message,
                        "hint": exc.hint,
                    }
                )
                bar.console.print(
                    f"[red]✗[/red] {escape(exc.message)}"
                    + (f" [dim]({escape(exc.hint)})[/dim]" if exc.hint else "")
                )
            else:
                results.append({"file": str(path), "ok": True, "document": info.to_dict()})
                bar.console.print(
                    f"[green]✓[/green] {escape(path.name)} → {info.id} "
                    f"({info.total_chunks} chunks, {_size(info.size_bytes)})"
                )
            finally:
                bar.remove_task(step)
                bar.advance(overall)
    failed = sum(1 for r in results if not r["ok"])
    if as_json:
        print_json(results)
    else:
        console.print(f"{len(results) - failed} added, {failed} failed")
    if failed:
        raise typer.Exit(1)


@kb_app.command("list")
def list_command(
    ctx: typer.Context,
    limit: int = typer.Option(50, "--limit", "-n", min=1, max=10_000),
    as_json: bool = typer.Option(False, "--json", help="Print documents as JSON."),
) -> None:
    """Documents, most recently added first."""
    documents = guarded(lambda: services(ctx).knowledge.list_documents(limit))
    if as_json:
        print_json([d.to_dict() for d in documents])
        return
    if not documents:
        console.print("[dim]the knowledge base is empty; add files with `strata kb add FILE…`[/dim]")
        return
    table = Table(expand=True)
    for column in ("id", "file", "type", "size", "chunks", "added"):
        table.add_column(column, overflow="fold")
    for d in documents:
        table.add_row(
            d.id,
            escape(d.file_name),
            d.format,
            _size(d.size_bytes),
            str(d.total_chunks),
            (iso(d.uploaded_at) or "")[:16],
        )
    console.print(table)


@kb_app.command("search")
def search_command(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="What to look for in your documents."),
    limit: int = typer.Option(None, "--limit", "-n", min=1, max=100, help="Hits to return (default 5)."),
    document: list[str] = typer.Option(
        None, "--document", "-d", help="Only in these document ids (repeatable)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print hits as JSON."),
) -> None:
    """Hybrid search over document chunks (similarity gate: kb.similarity_threshold on the model's scale)."""
    hits = guarded(lambda: services(ctx).knowledge.search(query, limit, document or None))
    if as_json:
        print_json({"query": query, "hits": [h.to_dict() for h in hits]})
        return
    if not hits:
        console.print("[dim]no results[/dim]")
        return
    table = Table(expand=True)
    for column in ("#", "document", "where", "score", "text"):
        table.add_column(column, overflow="fold")
    for i, hit in enumerate(hits, 1):
        where = ", ".join(f"{k} {v}" for k, v in hit.location.items() if k != "chars")
        table.add_row(
            str(i),
            f"{escape(hit.file_name)}\n[dim]{hit.document_id}[/dim]",
            escape(where),
            f"{hit.score:.4f}",
            escape(hit.content[:400]),
        )
    console.print(table)


@kb_app.command("show")
def show_command(
    ctx: typer.Context,
    document_id: str = typer.Argument(..., metavar="ID"),
    as_json: bool = typer.Option(False, "--json", help="Print metadata and text as JSON."),
) -> None:
    """A document's metadata and full extracted text."""
    document = guarded(lambda: services(ctx).knowledge.get(document_id))
    if as_json:
        print_json(document.to_dict())
        return
    info = document.info
    console.print(f"[bold]{escape(info.file_name)}[/bold]  {info.id}")
    console.print(
        f"{info.content_type} · {_size(info.size_bytes)} · {info.total_chunks} chunks · "
        f"added {iso(info.uploaded_at)}"
    )
    for key, value in info.metadata.items():
        console.print(f"[dim]{key}:[/dim] {escape(str(value))}")
    typer.echo("")
    typer.echo(document.content)


@kb_app.command("remove")
def remove_command(ctx: typer.Context, document_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Delete a document: its file, rows, vectors and keyword entries."""
    info = guarded(lambda: services(ctx).knowledge.remove(document_id))
    console.print(f"removed {escape(info.file_name)} ({info.id})")


@kb_app.command("personalize")
def personalize_command(
    ctx: typer.Context,
    person: list[str] = typer.Option(None, "--person", "-p", help="A person you focus on (repeatable)."),
    topic: list[str] = typer.Option(None, "--topic", "-t", help="A topic you care about (repeatable)."),
    about: str = typer.Option(None, "--about", help='Free text "about me".'),
    show: bool = typer.Option(False, "--show", help="Print the current settings and change nothing."),
) -> None:
    """Insight settings, kept in the knowledge base as memory.txt. Setting replaces all three fields."""
    knowledge = services(ctx).knowledge
    if show or (not person and not topic and about is None):
        current, document_id = guarded(knowledge.insight_settings)
        print_json({**current.to_dict(), "documentId": document_id})
        return
    document = guarded(lambda: knowledge.set_insight_settings(person or [], topic or [], about or ""))
    console.print(f"saved; memory.txt is {document.id}" if document else "cleared; memory.txt removed")
