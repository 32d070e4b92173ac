"""7d / 30d windows, the ±25 % trend and the daily series, at their boundaries."""

from __future__ import annotations

import pytest

from app.core.clock import DAY_MS
from insights.trends import counts, daily_series, trend

NOW = 1_767_225_600_000


def test_window_edges_are_half_open() -> None:
    c = counts([NOW, NOW - 7 * DAY_MS + 1, NOW - 7 * DAY_MS, NOW - 14 * DAY_MS, NOW - 30 * DAY_MS], NOW)
    assert (c.last_7d, c.previous_7d, c.last_30d) == (2, 1, 4)


def test_future_events_are_ignored() -> None:
    assert counts([NOW + 1], NOW).last_30d == 0


@pytest.mark.parametrize(
    ("recent", "previous", "expected"),
    [
        (0, 0, "stable"),
        (1, 0, "rising"),
        (0, 1, "falling"),
        (5, 4, "rising"),  # exactly +25 %
        (4, 4, "stable"),
        (9, 8, "stable"),  # +12.5 %
        (10, 8, "rising"),
        (4, 5, "falling"),
        (8, 9, "stable"),
    ],
)
def test_trend(recent: int, previous: int, expected: str) -> None:
    assert trend(recent, previous) == expected


def test_daily_series_buckets_oldest_first() -> None:
    series = daily_series(
        [NOW, NOW - 1, NOW - DAY_MS, NOW - 29 * DAY_MS - 1, NOW - 30 * DAY_MS], NOW, days=30
    )
    assert series[-1] == 2 and series[-2] == 1 and series[0] == 1 and sum(series) == 4
