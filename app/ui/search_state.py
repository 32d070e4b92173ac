"""The search screen's state as a plain value: query text + filter chips → SearchFilters."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from app.core.clock import DAY_MS
from app.core.domain import SearchFilters
from app.core.search.dates import parse_query_dates

FILTER_KEYS = ("platform", "channel", "person", "date", "archived")
# Archived messages (replaced by a summary) are left out unless this chip is on.
ARCHIVED_INCLUDED = "included"
# Date chips are presets, explicit bounds "YYYY-MM-DD..YYYY-MM-DD" (either side may be empty), or a
# period the query understanding knows ("last month", "in March", "2026-11-02").
DATE_PRESETS = {"today": 0, "last 7 days": 7, "last 30 days": 30, "last 365 days": 365}
DATE_HELP = "a period like \u201clast month\u201d or \u201cin March\u201d, or dates as 2026-11-01..2026-11-15"


@dataclass(frozen=True, slots=True)
class SearchState:
    text: str = ""
    chips: tuple[tuple[str, str], ...] = ()

    def with_text(self, text: str) -> SearchState:
        return replace(self, text=text)

    def add_chip(self, key: str, value: str) -> SearchState:
        if key not in FILTER_KEYS:
            raise ValueError(f"unknown filter {key!r}; one of {FILTER_KEYS}")
        value = " ".join(value.split())
        if not value:
            return self
        if key == "date":
            date_bounds(value, int(time.time() * 1000))  # a bad range never becomes a chip
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
    """Unix-ms bounds for a date chip: a preset, 'YYYY-MM-DD..YYYY-MM-DD' (local dates) or a period
    phrase; ValueError says what was wrong and what is understood."""
    if value in DATE_PRESETS:
        days = DATE_PRESETS[value]
        now = datetime.fromtimestamp(now_ms / 1000)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=days)
        return int(start.timestamp() * 1000), None
    if ".." in value:
        first, _, last = value.partition("..")
        since = _day_start(first) if first.strip() else None
        until = _day_start(last) + DAY_MS - 1 if last.strip() else None
        if since is None and until is None:
            raise ValueError(f"\u201c{value}\u201d has no dates; use {DATE_HELP}")
        if since is not None and until is not None and since > until:
            raise ValueError(f"\u201c{value}\u201d ends before it starts; put the earlier date first")
        return since, until
    parsed = parse_query_dates(value, now_ms)
    if parsed.range is not None and parsed.range.phrase == value.strip().lower():
        return parsed.range.since, parsed.range.until
    raise ValueError(f"\u201c{value}\u201d is not a period Strata understands; use {DATE_HELP}")


def _day_start(text: str) -> int:
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d")
    except ValueError as exc:
        raise ValueError(f"\u201c{text.strip()}\u201d is not a date like 2026-03-31") from exc
    return int(day.timestamp() * 1000)
