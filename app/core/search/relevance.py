"""Calibrated relevance in [0, 1] from a candidate's cosine, BM25 value and exact word overlap.

The same number means the same thing for a message, a summary, an insight or a document chunk:
it is built from absolute evidence (how similar the vectors are on the local model's scale, how
many of the query's content words the text holds, whether it holds them as a phrase), never from
list positions alone, so results of different kinds can be merged and cut at one floor.
How the constants were chosen: docs/ARCHITECTURE.md ("Relevance") and docs/benchmarks.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from app.core.search.query_words import informative
from app.core.search.word_match import TermMatcher
from app.core.storage.keyword import STOPWORDS, query_terms

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SUFFIXES = ("ies", "ing", "ed", "es", "s", "y")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff]")


@lru_cache(maxsize=1 << 16)  # a few thousand words per query, mostly the same ones again
def stem(word: str) -> str:
    """A crude suffix strip, so "policies"/"policy" or "painted"/"painting" count as one word."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


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
class Evidence:
    """What is known about one candidate; any part may be missing (None)."""

    cosine: float | None = None
    bm25: float | None = None
    text: str | None = None
    # The candidate read with its conversation neighbours (messages only): their vectors'
    # normalized sum, and their words. A reply often lacks the words of the question it answers.
    window_cosine: float | None = None
    window_texts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RelevanceModel:
    """The calibration, one set for every kind (tuned on LoCoMo dev, tests/benchmarks)."""

    # Cosine at or below `cosine_low` is no evidence, `cosine_high` and above full evidence:
    # all-MiniLM-L6-v2 puts unrelated chat lines at 0.0–0.25 and paraphrases at 0.6–0.8.
    cosine_low: float = 0.15
    cosine_high: float = 0.70
    # The most the vector leg alone can give (noisy-OR with the lexical side below).
    semantic_weight: float = 0.69
    # The most partial word overlap can give; scaled by the hit's BM25 relative to the best hit,
    # which carries the rarity of the words it matched.
    lexical_weight: float = 0.9
    # How much the conversation window counts beside the candidate's own evidence.
    window_semantic: float = 0.7
    window_lexical: float = 0.9
    # A hit holding every content word of the query starts here, above any vector-only hit.
    exact_base: float = 0.70
    # Partial word overlap counts less than its share: one word of "opera tickets La Scala" in
    # "what do I owe you for the concert ticket?" is a coincidence more often than an answer.
    # 1.25 took unrelated queries with no hit from 0.89 to 0.97 on the precision set at a cost of
    # 0.002 LoCoMo R@10 (docs/benchmarks.md, "Precision").
    partial_exponent: float = 1.25
    # Judge only the query's informative words: its question frame ("what did … say about",
    # "how many", "ever mention") is not evidence (query_words.py; docs/benchmarks.md, "Trust").
    frame_words: bool = True
    # Some of the query's words with none of its meaning is more often a coincidence than an
    # answer ("tax audit" in "big projects can be so taxing"): partial word overlap counts half
    # when the vector leg gives nothing, fully from this calibrated similarity up; 0 = off.
    partial_support: float = 0.0

    def for_query(self, query: str, best_bm25: float) -> QueryScorer:
        return QueryScorer(self, query, best_bm25)


# Where each local model's cosines sit (low = no evidence, high = full evidence). Embedding models
# use very different ranges: MiniLM puts unrelated chat near 0.05 and answers near 0.64, while
# multilingual-e5 puts *everything* between 0.75 and 0.95. Read off the precision set
# (tests/benchmarks/bench_precision.py): `low` is about the 90th percentile of a query's cosine to
# unrelated messages, `high` a little above a typical answer's cosine. A model not listed gets the
# MiniLM scale; calibrate it the same way before relying on the floor (docs/ARCHITECTURE.md).
COSINE_SCALES: dict[str, tuple[float, float]] = {
    "all-MiniLM-L6-v2-onnx-int8": (0.15, 0.70),
    "multilingual-e5-small-q4": (0.80, 0.90),
}


def relevance_model_for(model_id: str) -> RelevanceModel:
    """The calibration for the embedding model whose vectors search uses."""
    low, high = COSINE_SCALES.get(model_id, COSINE_SCALES["all-MiniLM-L6-v2-onnx-int8"])
    return RelevanceModel(cosine_low=low, cosine_high=high)


class QueryScorer:
    """Relevance of candidates for one query (its content words are parsed once)."""

    def __init__(self, model: RelevanceModel, query: str, best_bm25: float) -> None:
        self.model = model
        words = query_terms(query)
        if model.frame_words:
            words = informative(words)
        self.terms = list(dict.fromkeys(stem(t) for t in words))
        self.best_bm25 = best_bm25
        self._seen: dict[str, frozenset[str]] = {}
        # One regex scan per text finds which terms it holds (a term plus a common suffix), far
        # cheaper than stemming every word of a few hundred candidate texts. CJK bigrams have no
        # word boundaries and are matched as substrings.
        self._cjk = [t for t in self.terms if _CJK.search(t)]
        self._matcher = TermMatcher(t for t in self.terms if not _CJK.search(t))

    def present(self, text: str) -> frozenset[str]:
        """The query terms `text` holds (memoized: a neighbour's text is read for several windows)."""
        found = self._seen.get(text)
        if found is None:
            lowered = text.lower()
            hits = self._matcher.found(lowered)
            hits.update(t for t in self._cjk if t in lowered)
            found = self._seen[text] = frozenset(hits)
        return found

    def coverage(self, text: str | None) -> tuple[float, bool]:
        """(share of the query's content words the text holds, whether it holds them as a phrase)."""
        if not text or not self.terms:
            return 0.0, False
        present = self.present(text)
        coverage = sum(t in present for t in self.terms) / len(self.terms)
        if coverage < 1.0 or len(self.terms) < 2:
            return coverage, coverage == 1.0
        words = content_stems(text)
        n = len(self.terms)
        phrase = any(words[i : i + n] == self.terms for i in range(len(words) - n + 1))
        return coverage, phrase

    def _calibrated(self, cosine: float | None) -> float:
        if cosine is None:
            return 0.0
        m = self.model
        return min(1.0, max(0.0, (cosine - m.cosine_low) / (m.cosine_high - m.cosine_low)))

    def relevance(self, evidence: Evidence) -> float:
        m = self.model
        semantic = self._calibrated(evidence.cosine)
        if evidence.window_cosine is not None:
            window = self._calibrated(evidence.window_cosine)
            semantic = max(semantic, m.window_semantic * window + (1 - m.window_semantic) * semantic)
        coverage, phrase = self.coverage(evidence.text)
        rarity = 0.0
        if evidence.bm25 is not None and self.best_bm25 > 0:
            rarity = min(1.0, evidence.bm25 / self.best_bm25)
        words = coverage
        if evidence.window_texts and self.terms:
            held = set(self.present(evidence.text or ""))
            for text in evidence.window_texts:
                held |= self.present(text)
            around = len(held) / len(self.terms)
            words = max(coverage, m.window_lexical * around + (1 - m.window_lexical) * coverage)
        lexical = m.lexical_weight * words**m.partial_exponent * (0.5 + 0.5 * rarity)
        if words < 1.0 and m.partial_support > 0:
            lexical *= min(1.0, 0.5 + 0.5 * semantic / m.partial_support)
        # Noisy-OR: either leg alone is evidence, both together more (the dual-hit boost).
        combined = 1.0 - (1.0 - m.semantic_weight * semantic) * (1.0 - lexical)
        if coverage >= 1.0:
            # Every content word present: above every partial match, ordered by phrase and meaning.
            combined = max(combined, m.exact_base + (1.0 - m.exact_base) * (0.5 * semantic + 0.5 * phrase))
        return min(1.0, combined)


# The specification's knowledge-base gate: "cosine similarity ≥ 0.7", a figure set for OpenAI's
# text-embedding-3-small. Other models put the same closeness elsewhere (MiniLM scores "vacation
# policy" against the handbook's "Vacation policy" section at 0.69), so for them the setting is
# read as a share of the relevance floor: the default 0.7 asks a match found by meaning alone to
# reach the floor on the active model's calibrated scale (0.39 cosine for MiniLM), 0.8 asks
# 8/7 of it, 0 turns the gate off. docs/api.md ("Knowledge-base similarity gate") has the table.
SPEC_SIMILARITY = 0.7
SPEC_SIMILARITY_MODELS = frozenset({"openai:text-embedding-3-small"})


def similarity_gate(threshold: float, model_id: str, model: RelevanceModel, floor: float) -> float:
    """The raw cosine a vector match needs for the knowledge-base search (`kb.similarity_threshold`)."""
    if model_id in SPEC_SIMILARITY_MODELS:
        return threshold  # the model the specification's figure was set for: taken as it is
    wanted = floor * threshold / SPEC_SIMILARITY
    if wanted <= 0:
        return -1.0  # no gate: every cosine passes
    # A vector-only hit's relevance is semantic_weight × calibrated cosine (QueryScorer.relevance).
    evidence = min(1.0, wanted / model.semantic_weight)
    return model.cosine_low + evidence * (model.cosine_high - model.cosine_low)
