"""Human times for the screens, in one place: "3 min ago" / "in 2 h" / "09:05" with the exact
local time for hover text, and plain local timestamps for tables."""

from __future__ import annotations

from datetime import datetime

from app.core.clock import DAY_MS

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS


def parse_iso(text: str | None) -> int | None:
    """ISO-8601 text from a service dict (`2026-11-23T23:28:16.928000Z`) → Unix ms; None stays None."""
    if not text:
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def exact(ms: int | None) -> str:
    """ "Monday 2 November 2026, 09:05" (local time): the hover text behind a relative time."""
    if ms is None:
        return ""
    moment = datetime.fromtimestamp(ms / 1000)
    return f"{moment:%A} {moment.day} {moment:%B %Y, %H:%M}"


def local_time(ms: int | None, *, with_seconds: bool = False) -> str:
    """ "2026-11-02 09:05" (local time), for tables and lists of many times."""
    if ms is None:
        return ""
    fmt = "%Y-%m-%d %H:%M:%S" if with_seconds else "%Y-%m-%d %H:%M"
    return datetime.fromtimestamp(ms / 1000).strftime(fmt)


def relative(ms: int | None, now_ms: int) -> str:
    """When something ran or will run: "just now", "5 min ago", "in 3 h", "yesterday",
    "4 days ago", then the date; "never" for None (runs, syncs, schedules, uploads)."""
    if ms is None:
        return "never"
    delta = now_ms - ms
    ahead, span = delta < 0, abs(delta)
    if span < MINUTE_MS:
        return "just now" if not ahead else "in a moment"
    if span < HOUR_MS:
        amount = f"{span // MINUTE_MS} min"
    elif span < DAY_MS:
        amount = f"{span // HOUR_MS} h"
    elif span < 2 * DAY_MS:
        return "tomorrow" if ahead else "yesterday"
    elif span < 14 * DAY_MS:
        amount = f"{span // DAY_MS} days"
    else:
        return datetime.fromtimestamp(ms / 1000).strftime("%d %b %Y")
    return f"in {amount}" if ahead else f"{amount} ago"


def relative_time(ms: int | None, now_ms: int) -> str:
    """When a message was written, short: "just now", "12 min ago", "09:05" (today), "yesterday",
    "3 days ago", "2 Nov" (this year), "2 Nov 2024"; future times (clock skew) show as the date."""
    if ms is None:
        return ""
    moment, now = datetime.fromtimestamp(ms / 1000), datetime.fromtimestamp(now_ms / 1000)
    seconds = (now_ms - ms) / 1000
    days = (now.date() - moment.date()).days
    if 0 <= seconds < 60:
        return "just now"
    if 0 <= seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if days == 0 and seconds >= 0:
        return f"{moment:%H:%M}"
    if days == 1:
        return "yesterday"
    if 1 < days < 7:
        return f"{days} days ago"
    if moment.year == now.year:
        return f"{moment.day} {moment:%b}"
    return f"{moment.day} {moment:%b %Y}"
