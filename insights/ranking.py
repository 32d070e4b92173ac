"""Ranks insights: value score × effective weight multiplier, with state, trend and rank position."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from insights import scoring, trends
from insights.model import Insight


@dataclass(frozen=True, slots=True)
class RankedInsight:
    insight: Insight
    value: scoring.ValueScore
    multiplier: float
    score: float
    state: str
    trend: str
    counts: trends.AccessCounts

    @property
    def id(self) -> str:
        return self.insight.id

    def to_dict(self, *, full: bool = True) -> dict[str, Any]:
        data = self.insight.to_dict(value_score=self.value.total, state=self.state)
        data.update(
            score=round(self.score, 6),
            effectiveMultiplier=round(self.multiplier, 6),
            trend=self.trend,
            rank=self.insight.weights.current_event_rank,
        )
        if full:
            data["scores"] = self.value.to_dict()
        else:
            for name in ("details", "timeline", "description", "insightWeights", "addressedTo"):
                data.pop(name, None)
        return data


def freshness_anchor(insight: Insight) -> int:
    """The newest thing that happened to the insight in the conversation (its last timeline event)."""
    times = [t.at for t in insight.draft.timeline] or [insight.draft.occurred_at]
    return max(times)


def rank(
    items: Iterable[tuple[Insight, Sequence[int]]],
    *,
    now: int,
    frequency_max: int = scoring.DEFAULT_FREQUENCY_MAX,
) -> list[RankedInsight]:
    """`items` pairs each insight with its access-event times; result is best first, ranks from 1."""
    scored: list[RankedInsight] = []
    for insight, times in items:
        c = trends.counts(times, now)
        weights = replace(insight.weights, access_count_7d=c.last_7d, access_count_30d=c.last_30d)
        insight = replace(insight, weights=weights)
        d = insight.draft
        value = scoring.value_score(
            access_count_30d=c.last_30d, updated_at=freshness_anchor(insight), importance=d.importance,
            urgency=d.urgency, favorite=weights.favorite, now=now, frequency_max=frequency_max,
        )  # fmt: skip
        multiplier = scoring.effective_multiplier(weights, now, insight.created_at)
        scored.append(
            RankedInsight(
                insight=insight, value=value, multiplier=multiplier,
                score=scoring.ranking_score(value, multiplier), state=scoring.state(c.last_30d),
                trend=trends.trend(c.last_7d, c.previous_7d), counts=c,
            )
        )  # fmt: skip
    scored.sort(key=lambda r: (-r.score, -r.insight.draft.occurred_at, r.id))
    return [
        replace(r, insight=replace(r.insight, weights=replace(r.insight.weights, current_event_rank=i)))
        for i, r in enumerate(scored, 1)
    ]
