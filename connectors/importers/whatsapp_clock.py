"""The timestamp that starts every WhatsApp export line: date, clock, day-period markers, invisible marks.

WhatsApp writes the time with the phone's locale, so the same export format comes with many
clocks: `21:15`, `9:15 PM`, `9:15 p. m.` (Spanish, with a no-break space), `00:08 a. m.`
(several Android locales write the hour after midnight as 0 with an AM marker), `9:15 nachm.`,
markers before the time (Japanese `午後`, Chinese `下午`, Korean `오후`, Hungarian `du.`,
Turkish `ÖS`), and
left-to-right / right-to-left marks and other invisible characters around the parts. The
markers below are the ones docs/importers.md lists, each with a fixture; a marker not in the
list leaves the line unrecognized (reported and skipped), never misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Invisible characters phones insert around header parts: LRM/RLM, the Arabic letter mark,
# zero-width space/joiner, word joiner, BOM, bidi embeddings/overrides and isolates.
INVISIBLE = (
    "\u200b\u200c\u200d\u200e\u200f\u061c\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_I = f"[{INVISIBLE}]*"
_S = f"[\\s{INVISIBLE}]"  # \s covers U+00A0 (no-break) and U+202F (narrow no-break) spaces

# Day-period markers after the time, as (regex, meaning). Compared after removing dots,
# spaces and case, so `AM`, `am`, `a.m.`, `a. m.` and `a.\u00a0m.` are one marker.
_AFTER: tuple[tuple[str, str], ...] = (
    (r"a\.?\s?m\.?", "am"),  # en, es, ca, pt, nl, …
    (r"p\.?\s?m\.?", "pm"),
    (r"vorm\.", "am"),  # de (Android before CLDR 28)
    (r"nachm\.", "pm"),
    (r"π\.?\s?μ\.?", "am"),  # el
    (r"μ\.?\s?μ\.?", "pm"),
    (r"fm", "am"),  # sv
    (r"em", "pm"),
    (r"ap\.", "am"),  # fi
    (r"ip\.", "pm"),
    (r"dop\.", "am"),  # cs
    (r"odp\.", "pm"),
    (r"SA", "am"),  # vi
    (r"CH", "pm"),
    (r"ص", "am"),  # ar
    (r"م", "pm"),
)
# Markers written before the time (East Asian locales, Hungarian).
_BEFORE: tuple[tuple[str, str], ...] = (
    (r"午前", "am"),  # ja
    (r"午後", "pm"),
    (r"上午", "am"),  # zh
    (r"下午", "pm"),
    (r"오전", "am"),  # ko
    (r"오후", "pm"),
    (r"de\.", "am"),  # hu
    (r"du\.", "pm"),
    (r"ÖÖ", "am"),  # tr
    (r"ÖS", "pm"),
)


def _key(marker: str) -> str:
    return re.sub(r"[\s.]", "", marker).lower()


def _meaning_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for pattern, meaning in _AFTER + _BEFORE:
        # The canonical spelling of each pattern: drop the regex syntax, keep the letters.
        table[_key(pattern.replace("\\s?", "").replace("\\.?", "").replace("\\.", ""))] = meaning
    return table


_MEANING = _meaning_table()
_AFTER_RE = "|".join(p for p, _ in _AFTER)
_BEFORE_RE = "|".join(p for p, _ in _BEFORE)


def _header_pattern(invisible: bool) -> re.Pattern[str]:
    i = _I if invisible else ""
    sp = _S if invisible else r"\s"
    return re.compile(
        rf"^{i}\[?{i}"
        rf"(?P<a>\d{{1,4}}){i}\s?[./-]{i}\s?(?P<b>\d{{1,2}}){i}\s?[./-]{i}\s?(?P<c>\d{{1,4}})\.?{i},?"
        rf"{sp}+(?:klo\s+)?"  # fi (iOS): `[12.3.2022 klo 14.08.18]`
        rf"(?:(?P<before>(?i:{_BEFORE_RE})){sp}*)?"
        rf"(?P<h>\d{{1,2}})[:.](?P<m>\d{{2}})(?:[:.](?P<s>\d{{2}}))?"
        rf"(?:{sp}*(?P<after>(?i:{_AFTER_RE})))?"
        rf"(?:{sp}*ч\.)?"  # bg: a 24-hour clock followed by `ч.` ("hours")
        rf"(?:{sp}*\]\s?|{sp}+[-–]\s)(?P<rest>.*)$"
    )


# Most lines carry no invisible mark; they take the plainer (faster) pattern.
_HEADER = _header_pattern(invisible=False)
_HEADER_MARKED = _header_pattern(invisible=True)
_ANY_MARK = re.compile(f"[{INVISIBLE}]")
_HEAD_SPAN = 64  # a header's date, clock and separator fit in this many characters


@dataclass(frozen=True, slots=True)
class Header:
    """The parts of one message's first line; `ampm` is "am", "pm" or None (24-hour clock)."""

    line: int
    fields: tuple[str, str, str]
    hour: int
    minute: int
    second: int
    ampm: str | None
    rest: str


def parse_header(text: str, line: int) -> Header | None:
    """The header of a line that starts a message, or None for a continuation line."""
    pattern = _HEADER_MARKED if _ANY_MARK.search(text, 0, _HEAD_SPAN) else _HEADER
    match = pattern.match(text)
    if match is None:
        return None
    g = match.group
    marker = g("before") or g("after")
    return Header(
        line,
        (g("a"), g("b"), g("c")),
        int(g("h")),
        int(g("m")),
        int(g("s") or 0),
        _MEANING[_key(marker)] if marker else None,
        g("rest"),
    )


def clock_hour(hour: int, ampm: str | None) -> int:
    """The 24-hour hour; raises ValueError when the hour cannot go with the marker.

    Hour 0 with a marker is accepted (`00:08 a. m.` is 00:08, `0:15 午後` is 12:15): several
    locales count the 12-hour clock from 0.
    """
    if ampm is None:
        return hour
    if not 0 <= hour <= 12:
        raise ValueError(f"hour {hour} is impossible with {ampm.upper()}")
    return hour % 12 + (12 if ampm == "pm" else 0)
