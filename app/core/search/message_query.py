"""A message search request and its filters as typed terms over the message corpus's columns."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.domain import SearchFilters
from app.core.index.filters import Eq, Filter, between, one_of
from app.core.search.understanding import ALL_PARTS


@dataclass(frozen=True, slots=True)
class MessageQuery:
    text: str
    filters: SearchFilters
    limit: int
    user_id: str
    # Show the nearest hits even below the relevance floor.
    loose: bool = False
    # Which parts of query understanding to apply (the UI's chips can take each back).
    understand: frozenset[str] = ALL_PARTS


def message_filter(query: MessageQuery) -> Filter:
    """The query's filters as typed terms over the message corpus's columns."""
    f = query.filters
    return Filter(
        tuple(
            t
            for t in (
                Eq("user_id", query.user_id),
                None if f.include_archived else Eq("archived", False),
                one_of("platform", f.platforms),
                one_of("channel", f.channels),
                one_of("person", f.persons),
                between("timestamp", f.since, f.until),
            )
            if t is not None
        )
    )
