"""`strata reembed`: plan, then apply, the move to the configured embedding model (or the dream pass)."""

from __future__ import annotations

import typer
from rich.table import Table

from app.cli.context import console, guarded, print_json, progress_bar, services


def reembed_command(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; change nothing."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Re-embed toward the configured embedding model, then switch search to it atomically.

    After `embedding.*` changes in the settings, search keeps using the previous model's vectors;
    this embeds every kind (messages, summaries, insights, documents) with the new model and
    switches when the set is complete. Safe to stop: a second run resumes. With the model
    unchanged, it re-embeds rows whose content changed since their vector was made."""
    svc = services(ctx)
    plan = guarded(svc.reembed.plan)
    if as_json and dry_run:
        print_json(plan.to_dict())
        return
    if not as_json:
        _print_plan(plan.to_dict())
    if dry_run:
        return
    if plan.todo == 0 and not plan.switch:
        if not as_json:
            console.print("nothing to re-embed")
        else:
            print_json({"plan": plan.to_dict(), "embedded": 0, "switched": False})
        return
    with progress_bar("re-embedding", plan.todo, enabled=not as_json) as update:
        done: dict[str, int] = {}

        def step(kind: str, count: int, _total: int) -> None:
            done[kind] = count
            update(sum(done.values()), plan.todo)

        result = guarded(lambda: svc.reembed.apply(plan, progress=step, actor="cli"))
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"embedded {result.embedded} row(s)")
    if result.switched:
        console.print(f"[green]search now uses {plan.target_model} ({plan.target_dimensions}-d)[/green]")
    elif plan.switch:
        console.print("[yellow]not switched yet: rows are still missing; run `strata reembed` again[/yellow]")


def _print_plan(plan: dict[str, object]) -> None:
    if plan["switch"]:
        console.print(
            f"model change: {plan['active_model']} ({plan['active_dimensions']}-d) → "
            f"{plan['target_model']} ({plan['target_dimensions']}-d); search keeps the old vectors until done"
        )
    else:
        console.print(f"model {plan['active_model']} unchanged: re-embedding rows whose content changed")
    table = Table("kind", "rows", "done", "to embed")
    for kind in plan["kinds"]:  # type: ignore[attr-defined]
        table.add_row(kind["kind"], str(kind["rows"]), str(kind["done"]), str(kind["todo"]))
    console.print(table)
