"""Search filters from user-facing values (CLI options, REST query, MCP arguments) → SearchFilters.

One parser for every shell, so `strata search`, `GET /api/search` and the `search_memory` tool
read `--since 2024-05-01` the same way and return the same hits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.clock import DAY_MS
from app.core.domain import SearchFilters
from app.core.errors import InvalidInput
from app.core.jsonl import parse_timestamp

# Unix ms far beyond any date (year ~146,000,000); larger values are typos, not dates.
MAX_ABS_MS = 2**62


def parse_bound(value: str | int | None, *, end_of_day: bool) -> int | None:
    """ISO date/datetime or Unix ms; a bare date as `until` means the end of that day."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    ms = parse_timestamp(value)
    if abs(ms) > MAX_ABS_MS:
        raise InvalidInput(f"date {value!r} is out of range", hint="use ISO-8601 or Unix milliseconds")
    text = str(value).strip()
    if end_of_day and len(text) == 10 and text[4] == "-":
        ms += DAY_MS - 1
    return ms


def filters_from(data: Mapping[str, Any]) -> SearchFilters:
    """`platform`/`channel`/`person` (one value or a list) and `since`/`until` → SearchFilters."""

    def many(key: str) -> tuple[str, ...]:
        value = data.get(key)
        if value in (None, "", []):
            return ()
        values = value if isinstance(value, list | tuple) else [value]
        return tuple(str(v) for v in values if v not in (None, ""))

    return SearchFilters(
        platforms=many("platform"),
        channels=many("channel"),
        persons=many("person"),
        since=parse_bound(data.get("since"), end_of_day=False),
        until=parse_bound(data.get("until"), end_of_day=True),
    )


def sources_from(*, documents: bool = False, insights: bool = False) -> tuple[str, ...]:
    """The extra result kinds a shell's `documents`/`insights` switches ask for (`include=` of
    `MemoryService.search`): the same names from the CLI, REST and MCP."""
    return tuple(name for name, on in (("documents", documents), ("insights", insights)) if on)
