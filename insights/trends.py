"""Access-event log arithmetic: 7d / 30d counts, the rising/falling/stable trend, a daily series."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.core.clock import DAY_MS

TREND_MARGIN = 1.25  # "≥ previous 7d accesses + 25 %"
ACCESS_KINDS = ("view", "favorite", "search")


@dataclass(frozen=True, slots=True)
class AccessCounts:
    last_7d: int
    previous_7d: int
    last_30d: int


def counts(event_times: Iterable[int], now: int) -> AccessCounts:
    """Windows are half-open (now - N days, now]: an event exactly N days old has left the window."""
    last_7 = prev_7 = last_30 = 0
    for at in event_times:
        age = now - at
        if age < 0:
            continue  # recorded by a clock ahead of ours; not "in the last N days" yet
        if age < 7 * DAY_MS:
            last_7 += 1
        elif age < 14 * DAY_MS:
            prev_7 += 1
        if age < 30 * DAY_MS:
            last_30 += 1
    return AccessCounts(last_7d=last_7, previous_7d=prev_7, last_30d=last_30)


def trend(recent_7d: int, previous_7d: int) -> str:
    """Rising when recent ≥ previous × 1.25, falling when previous ≥ recent × 1.25; 0 vs 0 is stable."""
    if recent_7d > previous_7d and recent_7d >= previous_7d * TREND_MARGIN:
        return "rising"
    if previous_7d > recent_7d and previous_7d >= recent_7d * TREND_MARGIN:
        return "falling"
    return "stable"


def daily_series(event_times: Iterable[int], now: int, days: int = 30) -> list[int]:
    """Accesses per day, oldest first; the last bucket is the 24 h ending at `now`."""
    buckets = [0] * days
    for at in event_times:
        age = now - at
        if 0 <= age < days * DAY_MS:
            buckets[days - 1 - age // DAY_MS] += 1
    return buckets
