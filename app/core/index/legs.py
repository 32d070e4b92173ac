"""What each search leg found, as evidence for the one scoring function (ranks and raw values)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core.search.fusion import rrf_fuse


@dataclass(frozen=True, slots=True)
class LegHit:
    """One candidate as one leg saw it: `rank` is 1-based; `value` is the cosine similarity for the
    vector leg and the positive BM25 score ("higher is better") for the keyword leg."""

    key: str
    rank: int
    value: float


@dataclass(frozen=True, slots=True)
class Legs:
    vector: tuple[LegHit, ...] = ()
    keyword: tuple[LegHit, ...] = ()

    @property
    def keys(self) -> list[str]:
        return list(dict.fromkeys([*(h.key for h in self.vector), *(h.key for h in self.keyword)]))

    def similarity(self, key: str) -> float | None:
        return next((h.value for h in self.vector if h.key == key), None)


@dataclass(frozen=True, slots=True)
class FusionParams:
    """One set of fusion parameters for every kind (messages, summaries, insights, chunks)."""

    rrf_k: int = 10
    vector_weight: float = 1.0
    keyword_weight: float = 1.0


def ranked(pairs: Sequence[tuple[str, float]]) -> tuple[LegHit, ...]:
    """(key, value) pairs, best first, as leg hits with 1-based ranks."""
    return tuple(LegHit(key, rank, value) for rank, (key, value) in enumerate(pairs, start=1))


def fuse(legs: Legs, *, query: str, texts: Mapping[str, str], params: FusionParams) -> dict[str, float]:
    """The one fusion path every kind goes through: key -> score, in no particular order.

    Today reciprocal rank fusion over the legs' ranks; `query` and `texts` are the evidence a
    score-level fusion uses (see app/core/search/fusion.py)."""
    del query, texts  # rank fusion needs the positions only
    return rrf_fuse(
        [[h.key for h in legs.vector], [h.key for h in legs.keyword]],
        k=params.rrf_k,
        weights=[params.vector_weight, params.keyword_weight],
    )
