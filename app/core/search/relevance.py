"""Calibrated relevance in [0, 1] from a candidate's cosine, BM25 value and exact word overlap.

The same number means the same thing for a message, a summary, an insight or a document chunk:
it is built from absolute evidence (how similar the vectors are on the local model's scale, how
many of the query's content words the text holds, whether it holds them as a phrase), never from
list positions alone, so results of different kinds can be merged and cut at one floor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.storage.keyword import STOPWORDS, query_terms

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SUFFIXES = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A crude suffix strip, enough to let "policies"/"policy" or "went"/"go" not matter much."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word.rstrip("y") if len(word) > 4 else word


def content_stems(text: str) -> list[str]:
    """The text's non-stopword words, stemmed, in order."""
    words: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        # CJK runs have no spaces: split them into the bigrams the query and the keyword index use.
        words.extend(stem(w) for w in ([word] if word.isascii() else query_terms(word, drop_stopwords=False)))
    return words


@dataclass(frozen=True, slots=True)
class RelevanceModel:
    """The calibration, one set for every kind; see docs/ARCHITECTURE.md ("Relevance")."""

    # Cosine below `cosine_low` is no evidence; `cosine_high` and above is full evidence. Measured
    # for all-MiniLM-L6-v2 on ../shared/data (tests/benchmarks/bench_relevance_floor.py).
    cosine_low: float = 0.15
    cosine_high: float = 0.70
    # Everything a vector-only hit can reach; a hit holding every content word of the query
    # starts at `exact_base`, so an exact match always outranks a loose semantic neighbour.
    vector_cap: float = 0.69
    exact_base: float = 0.70
    # How much partial word overlap adds (scaled by the hit's BM25 relative to the best one, which
    # carries the rarity of the matched words).
    partial_weight: float = 0.5
    # Hits below the floor are "no close match"; `loose` searches skip it.
    floor: float = 0.30

    def for_query(self, query: str, best_bm25: float) -> QueryScorer:
        return QueryScorer(self, query, best_bm25)


class QueryScorer:
    """Relevance of candidates for one query (its content words are parsed once)."""

    def __init__(self, model: RelevanceModel, query: str, best_bm25: float) -> None:
        self.model = model
        self.terms = list(dict.fromkeys(stem(t) for t in query_terms(query)))
        self.best_bm25 = best_bm25

    def lexical(self, text: str | None) -> tuple[float, bool]:
        """(share of the query's content words the text holds, whether it holds them as a phrase)."""
        if not text or not self.terms:
            return 0.0, False
        words = content_stems(text)
        present = set(words)
        coverage = sum(t in present for t in self.terms) / len(self.terms)
        if coverage < 1.0 or len(self.terms) < 2:
            return coverage, coverage == 1.0
        n = len(self.terms)
        phrase = any(words[i : i + n] == self.terms for i in range(len(words) - n + 1))
        return coverage, phrase

    def relevance(self, cosine: float | None, bm25: float | None, text: str | None) -> float:
        m = self.model
        semantic = 0.0
        if cosine is not None:
            semantic = min(1.0, max(0.0, (cosine - m.cosine_low) / (m.cosine_high - m.cosine_low)))
        coverage, phrase = self.lexical(text)
        if coverage >= 1.0:
            # Every content word present: rank among exact hits by phrase and meaning.
            return m.exact_base + (1.0 - m.exact_base) * (0.5 * semantic + 0.5 * float(phrase))
        rarity = 0.0
        if bm25 is not None and self.best_bm25 > 0:
            rarity = min(1.0, bm25 / self.best_bm25)
        lexical = m.partial_weight * coverage * (0.5 + 0.5 * rarity)
        # Noisy-OR: either leg alone is evidence, both together more (the dual-hit boost).
        combined = 1.0 - (1.0 - m.vector_cap * semantic) * (1.0 - lexical)
        return min(m.vector_cap, combined)
