"""Question shape: does a query ask for a list of things gathered across a history ("which cities…")?

Such questions ("Which cities has John been to?", "What activities does Melanie do with her
kids?", "How many times…", "What do Jon and Gina both…") are answered by several messages,
written weeks apart, that name the things ("Chicago", "pottery") rather than the question's
words. Search treats them differently (messages.py, `SearchConfig.list_pool`): the named people's own
messages nearest in meaning join the ranking. English question forms only; a query in another
language is never taken for a list question, and search then works as before.
"""

from __future__ import annotations

import re

# "how many", "both", "all the", "ever", "in what ways": the question gathers several answers.
_GATHERING = re.compile(r"\b(how many|both|all|ever|in what ways|what are some|which ones)\b", re.IGNORECASE)
# "What activities does…", "Which European cities has…": a plural noun (after at most two other
# words) right after the question word, then an auxiliary ("What is…", "What did…" do not match).
_PLURAL_ASKED = re.compile(
    r"^\W*(?:what|which)\s+(?:[\w'+/.-]+\s+){0,2}?([a-z][\w'/+-]*?s)\s+"
    r"(?:do|does|did|has|have|had|is|are|was|were)\b",
    re.IGNORECASE,
)
_NOT_PLURAL = ("ss", "us", "is")  # "business", "status", "this"
# "How many dogs…", "how many European cities…": the counted noun.
_COUNTED = re.compile(
    r"\bhow many\s+(?:[\w'+/.-]+\s+)??([a-z][\w/+-]*)\s+(?:do|does|did|has|have|had|is|are|was|were)\b",
    re.IGNORECASE,
)
# Plural nouns that ask for no kind of thing ("how many times…", "what things…").
_NO_KIND = frozenset(
    {"times", "things", "ways", "kinds", "types", "sorts", "days", "weeks", "months", "years"}
)


def asks_for_list(query: str) -> bool:
    """True for questions whose answer is several things spread over a history."""
    if _GATHERING.search(query):
        return True
    match = _PLURAL_ASKED.match(query)
    return match is not None and not match.group(1).lower().endswith(_NOT_PLURAL)


def asked_category(query: str) -> str | None:
    """The plural noun a list question asks for ("cities" in "Which cities has John been to?"),
    lower-cased; None when the question names none ("What do Jon and Gina both like?")."""
    match = _PLURAL_ASKED.match(query) or _COUNTED.search(query)
    if match is None:
        return None
    noun = match.group(1).lower().rsplit("/", 1)[-1]  # "artists/bands": the last one
    return None if noun.endswith(_NOT_PLURAL) or noun in _NO_KIND else noun
