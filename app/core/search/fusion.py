"""Reciprocal rank fusion and near-duplicate collapse for hybrid result lists."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
_NON_WORD = re.compile(r"\W+", re.UNICODE)


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
