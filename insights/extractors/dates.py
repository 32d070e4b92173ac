"""Date phrases in chat ("by Friday", "tomorrow at 3pm", "March 15", "end of week") resolved
against the time the message was sent."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "tues": 1, "tue": 1, "wednesday": 2, "weds": 2,
    "thursday": 3, "thurs": 3, "thur": 3, "thu": 3, "friday": 4, "fri": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip
_MONTHS = {name: i for i, name in enumerate(calendar.month_name) if name} | {
    name: i for i, name in enumerate(calendar.month_abbr) if name
}
_MONTHS = {k.lower(): v for k, v in _MONTHS.items()} | {"sept": 9}
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "a couple of": 2, "a few": 3}

_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WD_RE = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_DAY_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("month_day", re.compile(rf"\b({_MONTH_RE})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)")),
    ("day_month", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH_RE})\b")),
    ("nth", re.compile(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b")),
    ("end_next_week", re.compile(r"\bend of next week\b")),
    ("end_week", re.compile(r"\b(?:end of (?:the )?week|eow|this week)\b")),
    ("next_week", re.compile(r"\bnext week\b")),
    ("end_month", re.compile(r"\b(?:end of (?:the )?month|eom)\b")),
    ("weekend", re.compile(r"\b(?:over |this |the )*weekend\b")),
    ("in_n", re.compile(r"\bin (\d+|a couple of|a few|a|one|two|three|four) (days?|weeks?)\b")),
    ("weekday", re.compile(rf"\b(?:(next|this|last|past|on last) )?({_WD_RE})(?:day)?\b")),
    ("tomorrow", re.compile(r"\b(?:tomorrow|tmrw|tmr|tomorow)\b")),
    ("morning", re.compile(r"\bin the morning\b")),
    (
        "today",
        re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|eod|end of (?:the )?day|cob)\b"
                   r"|\bafter (?:lunch|dinner|work)\b"),
    ),
]  # fmt: skip
_TIME_12 = re.compile(r"\b(\d{1,2})(?::(\d{2}))? ?(am|pm)\b")
_TIME_24 = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_TIME_WORD = re.compile(r"\b(midnight|noon)\b")
_CUE = re.compile(r"\b(?:by|before|until|till|due|deadline|no later than|close|closes)\b[^.!?]{0,12}$")


@dataclass(frozen=True, slots=True)
class DateMatch:
    """A resolved date phrase; `at` is in the reference time zone, end of day when no time was said."""

    at: datetime
    has_time: bool
    start: int
    end: int
    cued: bool  # preceded by "by", "before", "due" …: a deadline rather than a mention


def find_dates(text: str, ref: datetime) -> list[DateMatch]:
    """Every date phrase in `text`, in order, resolved relative to `ref` (the message time)."""
    low = text.lower()
    taken: list[tuple[int, int]] = []
    days: list[tuple[int, int, date]] = []
    exact: list[int] = []  # where "20 November", "March 3", "2026-11-20" start
    for kind, pattern in _DAY_PATTERNS:
        for m in pattern.finditer(low):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            day = _resolve_day(kind, m, ref)
            if day is not None:
                if kind == "weekday" and any(0 <= e - m.end() <= 3 for e in exact):
                    continue  # "Thursday 20 November": the weekday only names the date that follows
                taken.append((m.start(), m.end()))
                days.append((m.start(), m.end(), day))
                if kind in ("iso", "month_day", "day_month"):
                    exact.append(m.start())
    times = _find_times(low, taken)
    out: list[DateMatch] = []
    used_times: set[int] = set()
    for start, end, day in sorted(days):
        near = [t for t in times if abs(t[0] - end) <= 25 or abs(start - t[1]) <= 25]
        clock = None
        if near:
            t = min(near, key=lambda t: min(abs(t[0] - end), abs(start - t[1])))
            used_times.add(t[0])
            clock = t[2]
        out.append(_match(day, clock, start, end, low, ref))
    if not days:
        for s, e, clock in times:
            if s not in used_times:
                out.append(_match(ref.date(), clock, s, e, low, ref))
    return sorted(out, key=lambda d: d.start)


def pick_due(text: str, ref: datetime) -> DateMatch | None:
    """The date a task is due: the first one after "by/before/due", else the first one mentioned."""
    found = find_dates(text, ref)
    cued = [d for d in found if d.cued]
    best = cued or found
    return best[0] if best else None


def _match(day: date, clock: time | None, start: int, end: int, low: str, ref: datetime) -> DateMatch:
    at = datetime.combine(day, clock or time(23, 59), tzinfo=ref.tzinfo)
    return DateMatch(at=at, has_time=clock is not None, start=start, end=end, cued=_cued(low, start))


def _cued(low: str, start: int) -> bool:
    return bool(_CUE.search(low[max(0, start - 24) : start]))


def _find_times(low: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, time]]:
    found: list[tuple[int, int, time]] = []
    for m in _TIME_12.finditer(low):
        hour = int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0)
        if int(m.group(1)) <= 12:
            found.append((m.start(), m.end(), time(hour, int(m.group(2) or 0))))
    for m in _TIME_24.finditer(low):
        if not any(s <= m.start() < e for s, e, _ in found):
            found.append((m.start(), m.end(), time(int(m.group(1)), int(m.group(2)))))
    for m in _TIME_WORD.finditer(low):
        found.append((m.start(), m.end(), time(23, 59) if m.group(1) == "midnight" else time(12, 0)))
    return [t for t in found if not any(s <= t[0] < e for s, e in taken)]


def _resolve_day(kind: str, m: re.Match[str], ref: datetime) -> date | None:
    today = ref.date()
    try:
        if kind == "iso":
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if kind in ("month_day", "day_month"):
            month_text, day_text = (
                (m.group(1), m.group(2)) if kind == "month_day" else (m.group(2), m.group(1))
            )
            return _roll_year(today, _MONTHS[month_text], int(day_text))
        if kind == "nth":
            return _next_day_of_month(today, int(m.group(1)))
    except ValueError:
        return None  # "February 30": not a date, so not a deadline
    if kind == "end_next_week":
        return today + timedelta(days=7 + (4 - today.weekday()))
    if kind == "end_week":
        return today + timedelta(days=(4 - today.weekday()) % 7)
    if kind == "next_week":
        return today + timedelta(days=7 - today.weekday())
    if kind == "end_month":
        return date(today.year, today.month, calendar.monthrange(today.year, today.month)[1])
    if kind == "weekend":
        return today + timedelta(days=(6 - today.weekday()) % 7)
    if kind == "in_n":
        raw = m.group(1)
        n = int(raw) if raw.isdigit() else _NUMBERS[raw]
        return today + timedelta(days=n * (7 if m.group(2).startswith("week") else 1))
    if kind == "weekday":
        if m.group(1) in ("last", "past", "on last"):
            return today - timedelta(days=(today.weekday() - _WEEKDAYS[m.group(2)]) % 7 or 7)
        delta = (_WEEKDAYS[m.group(2)] - today.weekday()) % 7
        # Said on a Friday, "Friday" means next week's unless the speaker wrote "this Friday".
        if delta == 0 and m.group(1) != "this":
            delta = 7
        return today + timedelta(days=delta)
    if kind == "tomorrow":
        return today + timedelta(days=1)
    if kind == "morning":
        # "I'll call him in the morning" written in the evening means tomorrow morning.
        return today + timedelta(days=1) if ref.hour >= 12 else today
    return today


def _roll_year(today: date, month: int, day: int) -> date:
    candidate = date(today.year, month, day)
    # Chat talks about the near future: a date well in the past means next year's.
    if candidate < today - timedelta(days=60):
        candidate = date(today.year + 1, month, day)
    return candidate


def _next_day_of_month(today: date, day: int) -> date | None:
    if not 1 <= day <= 31:
        return None
    year, month = today.year, today.month
    for _ in range(3):
        if day <= calendar.monthrange(year, month)[1]:
            candidate = date(year, month, day)
            if candidate >= today:
                return candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None
