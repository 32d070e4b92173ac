"""Score-level fusion of the vector and keyword legs into one relevance in [0, 1] per candidate."""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from app.core.search.relevance import Evidence, QueryScorer, RelevanceModel

K = TypeVar("K", bound=Hashable)
_NON_WORD = re.compile(r"\W+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class LegHit:
    """One candidate as one leg saw it: `rank` is 1-based; `value` is the cosine similarity for the
    vector leg and the positive BM25 score ("higher is better") for the keyword leg."""

    key: str
    rank: int
    value: float


@dataclass(frozen=True, slots=True)
class Window:
    """A candidate read with its neighbours (messages): their normalized vector sum's cosine with
    the query, and the neighbours' texts."""

    cosine: float | None
    texts: tuple[str, ...] = ()


# Hits under this relevance are "no close match" (loose searches keep them); calibrated for
# all-MiniLM-L6-v2 on ../shared/data, see docs/ARCHITECTURE.md ("Relevance floor").
DEFAULT_FLOOR = 0.30


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """Tuned once for every record kind (messages, summaries, insights, document chunks)."""

    relevance: RelevanceModel = field(default_factory=RelevanceModel)
    floor: float = DEFAULT_FLOOR


def score_candidates(
    vector: Sequence[LegHit],
    keyword: Sequence[LegHit],
    *,
    query: str,
    texts: Mapping[str, str],
    config: FusionConfig | None = None,
    cosines: Mapping[str, float] | None = None,
    windows: Mapping[str, Window] | None = None,
    only: Collection[str] | None = None,
    scorer: QueryScorer | None = None,
) -> dict[str, float]:
    """Relevance in [0, 1] of every candidate either leg found, comparable across kinds.

    `texts` holds each candidate's text (keys missing from it are scored on the legs' values
    alone); it lets the lexical evidence be exact (phrase, every content word) rather than a
    BM25 value whose scale depends on the corpus. `cosines` may add the cosine of candidates only
    the keyword leg found; `windows` adds conversation context (see `Window`). `scorer`, from
    `query_scorer` for the same query, keyword hits and config, is reused as given (a second
    pass over the same candidates then reads no text twice)."""
    cosine = {**(cosines or {}), **{h.key: h.value for h in vector}}
    bm25 = {h.key: h.value for h in keyword}
    scorer = scorer or query_scorer(keyword, query=query, config=config)
    windows = windows or {}
    scores: dict[str, float] = {}
    for key in dict.fromkeys([*(h.key for h in vector), *bm25]):
        if only is not None and key not in only:
            continue
        window = windows.get(key)
        scores[key] = scorer.relevance(
            Evidence(
                cosine=cosine.get(key),
                bm25=bm25.get(key),
                text=texts.get(key),
                window_cosine=window.cosine if window else None,
                window_texts=window.texts if window else (),
            )
        )
    return scores


def query_scorer(keyword: Sequence[LegHit], *, query: str, config: FusionConfig | None = None) -> QueryScorer:
    """The relevance scorer `score_candidates` uses for `query` with these keyword hits (its
    rarity scale is their best BM25 value); it memoizes which query words each text holds."""
    model = (config or FusionConfig()).relevance
    return model.for_query(query, max((h.value for h in keyword), default=0.0))


def above_floor(scores: Mapping[str, float], floor: float) -> dict[str, float]:
    """The candidates a strict (not loose) search shows."""
    return {key: score for key, score in scores.items() if score >= floor}


def rrf_fuse(
    rankings: Sequence[Sequence[K]], k: int = 60, weights: Sequence[float] | None = None
) -> dict[K, float]:
    """score(d) = Σ_i w_i / (k + rank_i(d)), ranks starting at 1 (Cormack et al., 2009)."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


def near_duplicate_key(text: str) -> str:
    """Texts equal after lower-casing and dropping punctuation/whitespace count as duplicates."""
    return _NON_WORD.sub(" ", text.lower()).strip()
