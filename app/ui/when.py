"""Human times for the screens: "3 min ago" / "in 2 h" with the exact local time for hover text."""

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
    """The local date and time to the minute, for tooltips and tables that need it."""
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%a %d %b %Y, %H:%M")


def relative(ms: int | None, now_ms: int) -> str:
    """ "just now", "5 min ago", "in 3 h", "yesterday", "4 days ago", then the date."""
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


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary with an ellipsis, never mid-word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"
