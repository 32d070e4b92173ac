"""Turn date phrases in a query ("yesterday", "last week", "in March 2023") into a time range."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from app.core.clock import datetime_to_ms

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUM_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


@dataclass(frozen=True, slots=True)
class DateRange:
    since: int | None  # inclusive Unix ms
    until: int | None  # inclusive Unix ms
    phrase: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str  # the query with the date phrase removed
    range: DateRange | None


def _day_start(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _span(start: date, end_inclusive: date) -> tuple[int, int]:
    return datetime_to_ms(_day_start(start)), datetime_to_ms(
        _day_start(end_inclusive + timedelta(days=1))
    ) - 1


def _month_span(year: int, month: int) -> tuple[int, int]:
    last = calendar.monthrange(year, month)[1]
    return _span(date(year, month, 1), date(year, month, last))


def _rules(today: date) -> list[tuple[re.Pattern[str], object]]:
    def rel_days(n: int) -> tuple[int, int]:
        return _span(today - timedelta(days=n), today)

    monday = today - timedelta(days=today.weekday())
    first_of_month = today.replace(day=1)
    prev_month_end = first_of_month - timedelta(days=1)

    def month_in(m: re.Match[str]) -> tuple[int, int]:
        month = MONTHS[m.group("month").lower()]
        year_text = m.groupdict().get("year")
        if year_text:
            return _month_span(int(year_text), month)
        # "in March" means the most recent March that has started.
        year = today.year if month <= today.month else today.year - 1
        return _month_span(year, month)

    def n_of(word: str) -> int:
        return int(word) if word.isdigit() else _NUM_WORDS[word]

    num = r"(?P<n>\d{1,3}|" + "|".join(_NUM_WORDS) + r")"
    return [
        (re.compile(r"\btoday\b"), lambda m: _span(today, today)),
        (re.compile(r"\byesterday\b"), lambda m: _span(today - timedelta(days=1), today - timedelta(days=1))),
        (re.compile(r"\bthis week\b"), lambda m: _span(monday, today)),
        (
            re.compile(r"\blast week\b"),
            lambda m: _span(monday - timedelta(days=7), monday - timedelta(days=1)),
        ),
        (re.compile(r"\bthis month\b"), lambda m: _span(first_of_month, today)),
        (re.compile(r"\blast month\b"), lambda m: _span(prev_month_end.replace(day=1), prev_month_end)),
        (re.compile(r"\bthis year\b"), lambda m: _span(date(today.year, 1, 1), today)),
        (
            re.compile(r"\blast year\b"),
            lambda m: _span(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)),
        ),
        (re.compile(rf"\b(?:in the )?(?:last|past) {num} days?\b"), lambda m: rel_days(n_of(m.group("n")))),
        (
            re.compile(rf"\b(?:in the )?(?:last|past) {num} weeks?\b"),
            lambda m: rel_days(7 * n_of(m.group("n"))),
        ),
        (
            re.compile(rf"\b{num} days? ago\b"),
            lambda m: _span(
                today - timedelta(days=n_of(m.group("n"))), today - timedelta(days=n_of(m.group("n")))
            ),
        ),
        (
            re.compile(r"\b(?:on )?(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})\b"),
            lambda m: _span(*(2 * [date(int(m.group("y")), int(m.group("mo")), int(m.group("d")))])),
        ),
        (
            re.compile(rf"\b(?:in |during )?(?P<month>{_MONTH_RE})\.?,? (?P<year>(?:19|20)\d{{2}})\b"),
            month_in,
        ),
        (re.compile(rf"\b(?:in|during) (?P<month>{_MONTH_RE})\b"), month_in),
        (
            re.compile(r"\b(?:in|during) (?P<year>(?:19|20)\d{2})\b"),
            lambda m: _span(date(int(m.group("year")), 1, 1), date(int(m.group("year")), 12, 31)),
        ),
    ]


def parse_query_dates(query: str, now_ms: int) -> ParsedQuery:
    """The first date phrase found becomes a range; the phrase is removed from the search text."""
    today = datetime.fromtimestamp(now_ms / 1000, tz=UTC).date()
    lowered = query.lower()
    for pattern, resolve in _rules(today):
        match = pattern.search(lowered)
        if not match:
            continue
        try:
            since, until = resolve(match)  # type: ignore[operator]
        except (ValueError, KeyError):
            continue  # e.g. 2023-02-31: not a date, leave the text alone
        text = (query[: match.start()] + query[match.end() :]).strip()
        text = re.sub(r"\s{2,}", " ", text)
        return ParsedQuery(text=text or query, range=DateRange(since, until, match.group(0)))
    return ParsedQuery(text=query, range=None)
