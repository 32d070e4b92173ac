"""Which query terms a text holds: a term, or the term plus a common word ending, never a pronoun.

The relevance floor's lexical evidence (relevance.py) matches a query word's rough stem with a
common ending ("policies" ~ "policy", "painted" ~ "painting"), one regex scan per text. A text
word that is a function word is never such a variant: "mining" (stem "min") must not be found in
"a passion of mine", "wills" not in "will". Snowball's English stemmer was considered for the
whole match and does not help here: it, too, puts "mining" with "mine" and "taxing" with "tax"
(docs/benchmarks.md, "Trust: named nonsense, reindex progress").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.core.storage.keyword import STOPWORDS

# Endings a stem may carry in the text; "e" restores what chopping "-ing"/"-ed" took ("mak" ~ "make").
SUFFIX_RE = "(?:ies|ing|ed|es|s|y|e)?"
# Function words the keyword index keeps (they are rare enough in chat to be searched), but which
# are never a form of a content word: the possessive pronouns STOPWORDS lacks.
PRONOUNS = frozenset({"mine", "theirs", "thine"})
NOT_A_VARIANT = STOPWORDS | PRONOUNS


class TermMatcher:
    """Finds which of `terms` (stemmed, Latin script) a lower-cased text holds."""

    def __init__(self, terms: Iterable[str]) -> None:
        latin = sorted(set(terms), key=len, reverse=True)
        self._pattern = (
            re.compile(r"\b(" + "|".join(map(re.escape, latin)) + ")" + SUFFIX_RE + r"\b") if latin else None
        )

    def found(self, lowered: str) -> set[str]:
        if self._pattern is None:
            return set()
        hits: set[str] = set()
        for match in self._pattern.finditer(lowered):
            term, word = match.group(1), match.group(0)
            # A word equal to the stem is the term itself; a longer one must be a content word.
            if word == term or word not in NOT_A_VARIANT:
                hits.add(term)
        return hits
