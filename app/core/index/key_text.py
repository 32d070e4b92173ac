"""Extra search keys of a message: its sentences, each told in the third person about its writer.

A message is embedded whole, so in a long chat turn the one clause that answers a question
("It's one of my favorite cities to explore") is diluted by the rest, and "my" does not say
whose. Each sentence of a multi-sentence message becomes a key of its own with the writer's
first-person words replaced by the writer's name ("It's one of John's favorite cities to
explore"); a key's vector points back to its message (`app/core/index/message_keys.py`). Pure
rules, no language model: it only needs to make the vector sharper, not the text correct.
"""

from __future__ import annotations

import re

from app.core.search.relevance import content_stems

# A sentence ends at . ! ? … (possibly repeated, possibly closing a quote) followed by
# whitespace, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[.!?…][\"'”’)])\s+|\s*\n+\s*")
# First-person words and their contractions (straight or curly apostrophe), English only: in
# other languages the sentences are still split, only the pronouns stay as they are.
_FIRST_PERSON = re.compile(
    r"\b(?:I['’]m|I['’]ve|I['’]ll|I['’]d|I|me|my|mine|myself)\b",
    re.IGNORECASE,
)
# Keys shorter than this many content words carry too little to find anything on their own
# ("Thanks!", "Sounds fun!").
MIN_CONTENT_WORDS = 3
# A message holds at most this many keys (very long messages: documents pasted into a chat).
MAX_KEYS = 12
# Keys are short: longer sentences are cut at a word boundary.
MAX_KEY_CHARS = 300


def sentences(text: str) -> list[str]:
    """The text's sentences, stripped, empty ones left out."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def third_person(sentence: str, writer: str) -> str:
    """The sentence with the writer's first-person words replaced by their name."""
    name = writer.strip()
    if not name:
        return sentence

    def swap(match: re.Match[str]) -> str:
        word = match.group(0).lower().replace("’", "'")
        if word in ("my", "mine"):
            return f"{name}'s"
        if word == "i'm":
            return f"{name} is"
        if word == "i've":
            return f"{name} has"
        if word == "i'll":
            return f"{name} will"
        if word == "i'd":
            return f"{name} would"
        return name

    # A lone lower-case "i" is a typo for "I" often enough in chat; other words are matched
    # without case ("My", "ME").
    return _FIRST_PERSON.sub(swap, sentence)


def _cut(text: str) -> str:
    if len(text) <= MAX_KEY_CHARS:
        return text
    cut = text[:MAX_KEY_CHARS]
    space = cut.rfind(" ")
    return cut[:space] if space > MAX_KEY_CHARS // 2 else cut


def message_keys(writer: str | None, content: str | None) -> list[str]:
    """The extra keys of one message (none for a message of one sentence: its own vector is that
    key already; keying those too changed nothing on LoCoMo, docs/benchmarks.md)."""
    parts = sentences(content or "")
    if len(parts) < 2:
        return []
    keys: list[str] = []
    for part in parts:
        if len(content_stems(part)) < MIN_CONTENT_WORDS:
            continue
        keys.append(_cut(third_person(part, writer or "")))
        if len(keys) >= MAX_KEYS:
            break
    return list(dict.fromkeys(keys))
