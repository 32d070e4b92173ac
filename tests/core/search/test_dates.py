"""Date phrases in queries become inclusive Unix-ms ranges relative to the clock."""

from datetime import UTC, datetime

import pytest

from app.core.clock import datetime_to_ms
from app.core.search.dates import parse_query_dates
from tests.conftest import NOW_MS  # Saturday 2026-11-21 12:00 UTC


def day(y: int, m: int, d: int) -> int:
    return datetime_to_ms(datetime(y, m, d, tzinfo=UTC))


END = 86_400_000 - 1


@pytest.mark.parametrize(
    ("query", "since", "until", "rest"),
    [
        ("what did anna say yesterday", day(2026, 11, 20), day(2026, 11, 20) + END, "what did anna say"),
        ("standup notes today", day(2026, 11, 21), day(2026, 11, 21) + END, "standup notes"),
        ("deploy last week", day(2026, 11, 9), day(2026, 11, 15) + END, "deploy"),
        ("deploy this week", day(2026, 11, 16), day(2026, 11, 21) + END, "deploy"),
        ("budget last month", day(2026, 10, 1), day(2026, 10, 31) + END, "budget"),
        ("trip in March 2023", day(2023, 3, 1), day(2023, 3, 31) + END, "trip"),
        ("trip in march", day(2026, 3, 1), day(2026, 3, 31) + END, "trip"),
        ("party in December", day(2025, 12, 1), day(2025, 12, 31) + END, "party"),
        ("launch in 2024", day(2024, 1, 1), day(2024, 12, 31) + END, "launch"),
        ("bugs in the last 3 days", day(2026, 11, 18), day(2026, 11, 21) + END, "bugs"),
        ("call 2 days ago", day(2026, 11, 19), day(2026, 11, 19) + END, "call"),
        ("notes on 2026-02-03", day(2026, 2, 3), day(2026, 2, 3) + END, "notes"),
        ("May 2023 camping", day(2023, 5, 1), day(2023, 5, 31) + END, "camping"),
    ],
)
def test_phrases(query: str, since: int, until: int, rest: str) -> None:
    parsed = parse_query_dates(query, NOW_MS)
    assert parsed.range is not None
    assert (parsed.range.since, parsed.range.until, parsed.text) == (since, until, rest)


def test_no_phrase_leaves_query_alone() -> None:
    parsed = parse_query_dates("may I ask about the march of progress", NOW_MS)
    assert parsed.range is None and parsed.text == "may I ask about the march of progress"


def test_impossible_date_is_ignored() -> None:
    assert parse_query_dates("notes on 2026-02-31", NOW_MS).range is None
