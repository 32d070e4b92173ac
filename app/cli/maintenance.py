"""`strata stats`, `strata doctor` and the built-in demo."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.context import console, guarded, print_json, progress_bar, services
from app.cli.doctor_keys import build_missing_keys, pending_keys
from app.cli.search import render
from app.core.logs.setup import log_file_status

if TYPE_CHECKING:  # the CLI's import stays light (tests/cli/test_cli_startup.py)
    from app.core.index.keyword_format import ReindexStatus
    from app.core.storage.vector_file_build import FileStatus

DEMO_QUERIES = ("when is the launch?", "who is fixing the login bug", "budget decision")


def stats_command(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Counts of messages, tiers, platforms, summaries and vectors."""
    svc = services(ctx)
    data = guarded(svc.stats)  # with `keyword_reindex`: whether old entries wait for the reindex
    if as_json:
        print_json(data)
        return
    table = Table(show_header=False)
    for key, value in data.items():
        table.add_row(key, escape(str(value)))  # per-platform counts name user data
    console.print(table)


def doctor_command(
    ctx: typer.Context,
    repair: bool = typer.Option(False, "--repair", help="Also recompute every content hash and fix drift."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks and per-kind reports as JSON."),
    skip_keys: bool = typer.Option(
        False,
        "--skip-keys",
        help="Do not build missing sentence keys (hours on a large archive built in bulk); the app or "
        "`strata serve` builds them in the background. The other checks and repairs run.",
    ),
) -> None:
    """Check the data dir, schema, embedding model and every index kind; repair drift from SQLite.

    Every kind of the corpus (messages, summaries, insights, documents) is compared with SQLite:
    rows without a vector are re-embedded, vectors without a row removed, missing keyword entries
    re-indexed. `--repair` also recomputes every content hash and compares every key. A kind that
    another process is writing right now is left alone and reported as deferred. Messages without
    sentence keys get them first, with an estimate and a progress bar (Ctrl-C keeps what is built;
    `--skip-keys` leaves them out)."""
    from app.core.storage.migrate import current_revisions, heads  # Alembic: only here

    svc = services(ctx)
    ok = True
    checks: list[dict[str, object]] = []

    def check(name: str, passed: bool, detail: str) -> None:
        nonlocal ok
        ok &= passed
        checks.append({"name": name, "ok": passed, "detail": detail})
        if not as_json:
            console.print(
                f"{'[green]ok[/green]  ' if passed else '[red]FAIL[/red]'} {name}: {escape(detail)}"
            )

    check("data dir", svc.layout.root.is_dir(), str(svc.layout.root))
    check("log file", *log_file_status(svc.layout.logs))
    current = current_revisions(svc.db)
    check("schema", current == heads(), f"at {sorted(current)}")
    with svc.db.read_engine.connect() as conn:
        integrity = conn.exec_driver_sql("PRAGMA quick_check").scalar()
    check("sqlite integrity", integrity == "ok", str(integrity))
    try:
        started = time.perf_counter()
        svc.embedder.embed_query("doctor check")
        check(
            "embedding model",
            True,
            f"{svc.embedder.model_id} ({svc.embedder.dimensions}-d), "
            f"{(time.perf_counter() - started) * 1000:.0f} ms first call",
        )
    except Exception as exc:  # the model error carries its own fix
        check("embedding model", False, str(exc))
    keys_step = None
    if skip_keys:
        left = guarded(lambda: pending_keys(svc))
        check("sentence keys", True, f"{left} message(s) without keys; not built (--skip-keys)")
    else:
        keys_step = guarded(lambda: build_missing_keys(svc, quiet=as_json))
        if keys_step is not None and keys_step.stopped:
            if as_json:
                print_json({"ok": False, "stopped": True, "sentence_keys": keys_step.to_dict()})
            raise typer.Exit(130)  # Ctrl-C: the other checks are not run
    skip = ("message_key",) if skip_keys else ()
    with progress_bar("checking indexes", None, enabled=not as_json) as update:
        reports = guarded(
            lambda: svc.index.repair(full=repair, progress=lambda _kind, d, t: update(d, t), skip=skip)
        )
    check(
        "vector index",
        True,
        f"re-embedded {sum(r.reembedded for r in reports)}, "
        f"removed {sum(r.orphans_removed for r in reports)} orphan(s)",
    )
    for report in reports:
        if report.deferred_for:
            detail = (
                f"{report.rows} row(s), {report.vectors} vector(s); repair deferred: another process "
                f"is writing (pid {', '.join(t.split(':')[0] for t in report.deferred_for)}); run again later"
            )
        else:
            detail = (
                f"{report.rows} row(s), {report.vectors} vector(s); re-embedded {report.reembedded}, "
                f"removed {report.orphans_removed} orphan(s), re-indexed {report.keywords_rebuilt} text(s)"
            )
        check(f"index: {_KIND_NAMES.get(report.kind, report.kind)}", True, detail)
    if repair:  # a deletion's erasure a crash or an error left pending is finished here
        guarded(svc.index.erase_deleted)
    pending = guarded(svc.index.erasure_pending)
    check(
        "deleted vectors erased",
        pending == 0,
        "no data file holds a deleted row"
        if pending == 0
        else f"{pending} LanceDB table(s) may still hold deleted rows' bytes; "
        "run `strata doctor --repair` (the background repair also finishes it)",
    )
    keyword_format = _keyword_format_check(svc, repair=repair, quiet=as_json)
    if keyword_format is not None:
        check("keyword format: messages", True, _keyword_format_detail(keyword_format))
    ann = guarded(svc.index.vector_indexes)
    for kind, state in ann.items():
        check(f"vector index: {_KIND_NAMES.get(kind, kind)}", True, _ann_detail(state))
    if repair:
        # Dropped and written anew from LanceDB (a file damaged or in doubt; ~30 s at 1M messages).
        guarded(lambda: svc.index.maintain_vector_files(force=True))
    files = guarded(svc.index.vector_files)
    for kind, file_state in files.items():
        check(f"vector file: {_KIND_NAMES.get(kind, kind)}", True, _file_detail(file_state))
    if as_json:
        kinds = [
            {**r.to_dict(), "vector_index": ann.get(r.kind), **_file_json(files.get(r.kind))} for r in reports
        ]
        out: dict[str, object] = {"ok": ok, "checks": checks, "kinds": kinds}
        if keys_step is not None:
            out["sentence_keys"] = keys_step.to_dict()
        if keyword_format is not None:
            out["keyword_format"] = keyword_format.to_dict()
        print_json(out)
    if not ok:
        raise typer.Exit(1)


def _keyword_format_check(svc: Any, *, repair: bool, quiet: bool) -> ReindexStatus | None:
    """The messages' keyword entries against the current body format; `--repair` finishes a
    pending reindex here instead of leaving it to the background job."""
    status = guarded(svc.index.keyword_format)
    if status is None or not status.pending or not repair:
        return status
    with progress_bar("re-indexing keyword entries", status.total, enabled=not quiet) as update:
        guarded(lambda: svc.index.reindex_keywords(progress=update))
    return guarded(svc.index.keyword_format)


def _keyword_format_detail(status: ReindexStatus) -> str:
    if not status.pending:
        return f"format {status.target}, {status.total} entr{'y' if status.total == 1 else 'ies'} current"
    return (
        f"format {status.format} of {status.target}: {status.done} of {status.total} rewritten so far; "
        "a background job of `strata serve` or the app finishes it (or run `strata doctor --repair`)"
    )


def _ann_detail(state: dict[str, object]) -> str:
    """One kind's approximate vector index in a sentence (an absent one is no fault: exact search)."""
    if not state["approximate"]:
        return f"exact search, {state['rows']} vector(s) (index from {state['builds_at_rows']:,})"
    detail = (
        f"{state['index_type']}, {state['indexed_rows']} of {state['rows']} vector(s) indexed, "
        f"{state['unindexed_rows']} scanned in full until the next refresh"
    )
    faiss = state.get("faiss")
    if isinstance(faiss, dict):
        if faiss.get("unusable"):
            why = faiss["unusable"]
            return f"{detail}; faiss index unusable ({why}): `strata doctor --repair` rebuilds it"
        size = f"{faiss['rows']:,} rows, {faiss['disk_bytes'] / 1e6:.0f} MB"
        return f"{detail}; searched through a faiss IVF-SQ8 index ({size})"
    return detail


def _file_detail(state: FileStatus) -> str:
    """How much of a kind the memory-mapped vector file serves (rows added or rewritten since it
    was built are read from LanceDB until the background job rebuilds it)."""
    if state.bytes == 0:
        return f"none yet, {state.rows} vector(s) read from LanceDB (a background job builds it)"
    size = f"{state.bytes / 1e6:.{0 if state.bytes >= 1e7 else 2}f} MB"
    return (
        f"{state.served} of {state.rows} vector(s) served, {size}; "
        f"{state.stale} read from LanceDB until the next rebuild"
    )


def _file_json(state: FileStatus | None) -> dict[str, object]:
    if state is None:
        return {}
    return {"vector_file": {"rows": state.rows, "served": state.served, "bytes": state.bytes}}


_KIND_NAMES = {
    "message": "messages",
    "summary": "summaries",
    "insight": "insights",
    "chunk": "documents",
    "message_key": "sentence keys",
}


def demo_command(ctx: typer.Context) -> None:
    """Load the built-in demo conversation (once) and answer a few sample searches."""
    from app.services.demo import load_demo

    svc = services(ctx)
    result = guarded(lambda: load_demo(svc.memory))
    console.print(f"[bold]Strata[/bold] data dir: {svc.layout.root}")
    console.print(f"demo conversation: {result.imported} new, {result.duplicates} already there")
    for query in DEMO_QUERIES:
        console.rule(f"search: {query}")
        render(guarded(lambda q=query: svc.memory.search(q, limit=3)))
