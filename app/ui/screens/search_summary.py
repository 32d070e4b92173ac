"""What the search screen says about a result set: the count, the understood chips, examples."""

from __future__ import annotations

from typing import Any

from app.core.search.understanding import Understood


def count_text(shown: int, hidden: int, loose: bool, limit: int | None = None) -> str:
    """ "12 results", "Top 50 results" (at the limit), "1 result · 3 weaker matches hidden",
    "No close match"."""
    if not shown:
        return "No close match" if hidden and not loose else "No results"
    text = f"{shown} result{'s' if shown != 1 else ''}"
    if limit is not None and shown >= limit:
        text = f"Top {shown} results"
    if hidden and not loose:
        text += f" \u00b7 {hidden} weaker match{'es' if hidden != 1 else ''} hidden"
    return text


def example_queries(facets: Any) -> list[str]:
    """A few queries that will find something in this store: its most active people and times."""
    people = [name for name, _n in facets.people[:2]]
    examples = [f"{people[0]} last week"] if people else []
    if len(people) > 1:
        examples.append(f"what did {people[1]} say this month")
    if facets.people:
        examples.append("decisions last month")
    return examples


def understood_chips(understood: Understood) -> list[tuple[str, str]]:
    """("dates", "last week") and ("people", "Anna, Omar") chips for what was applied."""
    chips: list[tuple[str, str]] = []
    if understood.date is not None and understood.date.applied:
        chips.append(("dates", understood.date.phrase))
    if understood.people:
        chips.append(("people", ", ".join(understood.people)))
    return chips
