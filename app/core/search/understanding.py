"""What search understood from a query (date range, people, their conversations), returned with hits.

A person sees what was applied and can take it back (the UI shows removable chips); a date range
that would empty the result is reported as not applied rather than silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.clock import iso

# Parts of query understanding a caller may switch off (the UI's removable chips).
DATES = "dates"
PEOPLE = "people"
ALL_PARTS = frozenset({DATES, PEOPLE})


@dataclass(frozen=True, slots=True)
class DateUnderstood:
    phrase: str
    since: int | None
    until: int | None
    # False when nothing matched inside the range and the hits come from any time instead.
    applied: bool = True

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "phrase": self.phrase,
            "since": iso(self.since),
            "until": iso(self.until),
            "applied": self.applied,
        }
        if not self.applied:
            data["note"] = f"nothing matched {self.phrase!r}; showing matches from any time"
        return data


@dataclass(frozen=True, slots=True)
class Understood:
    date: DateUnderstood | None = None
    # Known senders the query names: their messages and conversations rank higher (not a filter).
    people: tuple[str, ...] = ()
    channels: tuple[tuple[str, str], ...] = ()  # (platform, channel) those people write in

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date.to_dict() if self.date else None,
            "people": list(self.people),
            "channels": [{"platform": p, "channel": c} for p, c in self.channels],
        }

    @property
    def empty(self) -> bool:
        return self.date is None and not self.people


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """Hits plus how they were found. `hidden` counts the nearest hits below the relevance floor
    that a loose search would show; hits empty and hidden > 0 means "no close match"."""

    hits: list[Any]
    understood: Understood = field(default_factory=Understood)
    loose: bool = False
    hidden: int = 0

    @property
    def no_close_match(self) -> bool:
        return not self.hits and not self.loose

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"understood": self.understood.to_dict(), "loose": self.loose}
        if self.no_close_match:
            data["no_close_match"] = True
            data["message"] = NO_CLOSE_MATCH
        return data


NO_CLOSE_MATCH = "no close match; search again with loose to see the nearest results anyway"
