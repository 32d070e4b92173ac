"""The search screen's state as a plain value: query text + filter chips → SearchFilters."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from app.core.clock import DAY_MS
from app.core.domain import SearchFilters

FILTER_KEYS = ("platform", "channel", "person", "date", "archived")
# Archived messages (replaced by a summary) are left out unless this chip is on.
ARCHIVED_INCLUDED = "included"
# Date chips are presets; "custom" ranges carry explicit bounds as "YYYY-MM-DD..YYYY-MM-DD".
DATE_PRESETS = {"today": 0, "last 7 days": 7, "last 30 days": 30, "last 365 days": 365}


@dataclass(frozen=True, slots=True)
class SearchState:
    text: str = ""
    chips: tuple[tuple[str, str], ...] = ()

    def with_text(self, text: str) -> SearchState:
        return replace(self, text=text)

    def add_chip(self, key: str, value: str) -> SearchState:
        if key not in FILTER_KEYS:
            raise ValueError(f"unknown filter {key!r}; one of {FILTER_KEYS}")
        value = value.strip()
        if not value:
            return self
        # One date range at a time: a new one replaces the old.
        chips = tuple(c for c in self.chips if not (key == "date" and c[0] == "date"))
        if (key, value) in chips:
            return self
        return replace(self, chips=(*chips, (key, value)))

    def remove_chip(self, key: str, value: str) -> SearchState:
        return replace(self, chips=tuple(c for c in self.chips if c != (key, value)))

    def values(self, key: str) -> tuple[str, ...]:
        return tuple(v for k, v in self.chips if k == key)

    def is_empty(self) -> bool:
        return not self.text.strip() and not self.chips

    def filters(self, now_ms: int) -> SearchFilters:
        since, until = None, None
        for value in self.values("date"):
            since, until = date_bounds(value, now_ms)
        return SearchFilters(
            platforms=self.values("platform"),
            channels=self.values("channel"),
            persons=self.values("person"),
            since=since,
            until=until,
            include_archived=bool(self.values("archived")),
        )


def date_bounds(value: str, now_ms: int) -> tuple[int | None, int | None]:
    """Unix-ms bounds for a date chip: a preset name or 'YYYY-MM-DD..YYYY-MM-DD' (local dates)."""
    if value in DATE_PRESETS:
        days = DATE_PRESETS[value]
        now = datetime.fromtimestamp(now_ms / 1000)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=days)
        return int(start.timestamp() * 1000), None
    if ".." in value:
        first, _, last = value.partition("..")
        since = _day_start(first) if first else None
        until = _day_start(last) + DAY_MS - 1 if last else None
        return since, until
    raise ValueError(f"date filter {value!r} is not a preset or 'YYYY-MM-DD..YYYY-MM-DD'")


def _day_start(text: str) -> int:
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d")
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a date like 2024-03-31") from exc
    return int(day.timestamp() * 1000)
