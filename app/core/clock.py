"""Injected time: every time-dependent rule takes a Clock so tests can fix the moment."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

DAY_MS = 86_400_000
HOUR_MS = 3_600_000


class Clock(Protocol):
    def now_ms(self) -> int:
        """Current time as Unix milliseconds (UTC)."""
        ...


class SystemClock:
    """The real wall clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class FixedClock:
    """A clock that only moves when told to; for tests and previews."""

    def __init__(self, now_ms: int) -> None:
        self._now = now_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> None:
        self._now += ms

    def set(self, now_ms: int) -> None:
        self._now = now_ms


def ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def datetime_to_ms(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def iso(ms: int | None) -> str | None:
    """ISO-8601 UTC text for a Unix-ms value, for display and JSON."""
    if ms is None:
        return None
    return ms_to_datetime(ms).isoformat().replace("+00:00", "Z")
