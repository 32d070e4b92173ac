"""What each search leg found, as evidence for the one scoring function (ranks and raw values)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.core.search.fusion import FusionConfig, LegHit, score_candidates

__all__ = ["FusionParams", "LegHit", "Legs", "fuse", "ranked"]


@dataclass(frozen=True, slots=True)
class Legs:
    vector: tuple[LegHit, ...] = ()
    keyword: tuple[LegHit, ...] = ()

    @property
    def keys(self) -> list[str]:
        return list(dict.fromkeys([*(h.key for h in self.vector), *(h.key for h in self.keyword)]))


@dataclass(frozen=True, slots=True)
class FusionParams:
    """One set of fusion parameters for every kind (messages, summaries, insights, chunks)."""

    config: FusionConfig = field(default_factory=FusionConfig)


def ranked(pairs: Sequence[tuple[str, float]]) -> tuple[LegHit, ...]:
    """(key, value) pairs, best first, as leg hits with 1-based ranks."""
    return tuple(LegHit(key, rank, value) for rank, (key, value) in enumerate(pairs, start=1))


def fuse(legs: Legs, *, query: str, texts: Mapping[str, str], params: FusionParams) -> dict[str, float]:
    """The one fusion path every kind goes through: key -> relevance in [0, 1], in no order."""
    return score_candidates(legs.vector, legs.keyword, query=query, texts=texts, config=params.config)
