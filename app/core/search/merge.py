"""Unified search: hits of every kind merged on their one relevance scale and cut at one floor."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from app.core.domain import SearchHit


def relevance_of(hit: SearchHit) -> float:
    """The hit's calibrated relevance. Every corpus kind scores through `fusion.score_candidates`,
    so a source that has not filled `relevance` in still reports it as its score."""
    return hit.relevance if hit.relevance is not None else min(1.0, max(0.0, hit.score))


def merge_hits(
    hits: Iterable[SearchHit], *, limit: int, floor: float, loose: bool
) -> tuple[list[SearchHit], int]:
    """(best `limit` hits, how many were below the relevance floor); `loose` keeps those too."""
    kept: list[SearchHit] = []
    hidden = 0
    seen: set[tuple[str, str]] = set()
    for hit in hits:
        if (hit.kind, hit.id) in seen:
            continue
        seen.add((hit.kind, hit.id))
        if not loose and relevance_of(hit) < floor:
            hidden += 1
            continue
        # Every hit leaves with its relevance, whichever source produced it.
        kept.append(
            hit if hit.relevance is not None else dataclasses.replace(hit, relevance=relevance_of(hit))
        )
    # Ordered by score: the relevance plus what a kind adds to rank its own hits (people named in
    # the query, recency), which every kind keeps on the relevance scale.
    kept.sort(key=lambda h: (-h.score, -relevance_of(h)))
    return kept[:limit], hidden
