"""Highlight query terms in result text (HTML-escaped, case-insensitive, works for CJK substrings)."""

from __future__ import annotations

import html
import re

_TERM = re.compile(r"[^\s\"'()]+", re.UNICODE)
# Words too common to be worth painting in a result.
_STOP = frozenset({"a", "an", "and", "the", "of", "to", "in", "on", "for", "is", "it", "or", "at"})


def query_terms(query: str, *, skip: str = "") -> list[str]:
    """The words of a query worth highlighting, longest first (so overlaps paint the longer one).

    Question words and other stop words are left out, and so are the words of `skip` (the date
    phrase search understood: "last year" is a range, not words to find)."""
    # The keyword index's list; imported here because it pulls in SQLAlchemy (keeps start-up light).
    from app.core.storage.keyword import STOPWORDS

    skipped = {t.lower() for t in _TERM.findall(skip)}
    terms = {t.strip(".,;:!?").lower() for t in _TERM.findall(query)}
    terms = {
        t for t in terms if t and t not in _STOP and t not in STOPWORDS and t not in skipped and ":" not in t
    }
    return sorted(terms, key=lambda t: (-len(t), t))


def _term_pattern(term: str) -> str:
    """Latin words match from a word start (and short ones as whole words: "go" not in "got");
    other scripts (CJK has no spaces) match anywhere."""
    escaped = re.escape(term)
    if not term.isascii() or not term[:1].isalnum():
        return escaped
    return rf"\b{escaped}\b" if len(term) <= 3 else rf"\b{escaped}"


def readable_on(background: str) -> str:
    """Near-black or white, whichever reads on `background` ("#rgb" or "#rrggbb")."""
    value = background.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    try:
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        return "#1b1b1f"
    return "#1b1b1f" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def highlight_html(text: str, terms: list[str], colour: str) -> str:
    """`text` as HTML with every occurrence of `terms` wrapped in a coloured span.

    The span fixes its text colour too: in a selected row the text turns white, and white on
    pale yellow could not be read."""
    if not text:
        return ""
    if not terms:
        return html.escape(text)
    pattern = re.compile("|".join(_term_pattern(t) for t in terms), re.IGNORECASE)
    style = f"background:{colour};color:{readable_on(colour)};"
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[pos : match.start()]))
        out.append(f'<span style="{style}">{html.escape(match.group(0))}</span>')
        pos = match.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def snippet(text: str, terms: list[str], width: int = 220) -> str:
    """A window of `text` around the first matched term, so long messages show the hit.

    The window starts and ends between words (never "evalu…"), unless a single word is longer."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    hits = [lower.find(t) for t in terms if lower.find(t) >= 0]
    start = max(0, min(hits) - width // 3) if hits else 0
    end = min(len(flat), start + width)
    if start > 0:
        space = flat.find(" ", start, min(hits) if hits else end)
        start = space + 1 if space >= 0 else start
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
