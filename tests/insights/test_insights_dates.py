"""Date phrases resolve against the message time (2026-03-11 is a Wednesday)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from insights.extractors.dates import find_dates, pick_due

WED = datetime(2026, 3, 11, 10, 0, tzinfo=UTC)
WED_EVENING = datetime(2026, 3, 11, 19, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("send the deck by Friday", date(2026, 3, 13)),
        ("by wednesday", date(2026, 3, 18)),  # same weekday means next week's
        ("this wednesday", date(2026, 3, 11)),
        ("next Wednesday", date(2026, 3, 18)),
        ("tomorrow", date(2026, 3, 12)),
        ("by EOD", date(2026, 3, 11)),
        ("end of week", date(2026, 3, 13)),
        ("end of next week", date(2026, 3, 20)),
        ("next week", date(2026, 3, 16)),
        ("over the weekend", date(2026, 3, 15)),
        ("end of month", date(2026, 3, 31)),
        ("in 3 days", date(2026, 3, 14)),
        ("in two weeks", date(2026, 3, 25)),
        ("March 20", date(2026, 3, 20)),
        ("20th of March", date(2026, 3, 20)),
        ("Jan 5th", date(2027, 1, 5)),  # well in the past → next year
        ("rent is due on the 1st", date(2026, 4, 1)),
        ("2026-06-28", date(2026, 6, 28)),
    ],
)
def test_day_phrases(text: str, expected: date) -> None:
    found = pick_due(text, WED)
    assert found is not None and found.at.date() == expected


def test_time_joins_its_day() -> None:
    found = pick_due("design review thursday at 3pm", WED)
    assert found is not None and found.has_time
    assert found.at == datetime(2026, 3, 12, 15, 0, tzinfo=UTC)


def test_time_alone_is_today_and_midnight_is_end_of_day() -> None:
    assert pick_due("sync moved to 14:30", WED).at == datetime(2026, 3, 11, 14, 30, tzinfo=UTC)  # type: ignore[union-attr]
    assert pick_due("due thursday at midnight", WED).at.hour == 23  # type: ignore[union-attr]


def test_in_the_morning_said_in_the_evening_is_tomorrow() -> None:
    assert pick_due("I'll call him in the morning", WED_EVENING).at.date() == date(2026, 3, 12)  # type: ignore[union-attr]


def test_cued_date_wins_over_first_mention() -> None:
    found = pick_due("post goes live April 2, drafts need to be final by Monday", WED)
    assert found is not None and found.cued and found.at.date() == date(2026, 3, 16)


def test_no_false_dates() -> None:
    assert find_dates("c'mon, the sun is out, 10k rows, v2.3.1, p99 > 2s, dates 24-28", WED) == []
    assert pick_due("February 30", WED) is None
