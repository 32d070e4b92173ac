"""Value score and weight adjustment for insights (spec "Insights": value score, boosts, decay).

Pure functions of an injected `now`; nothing here reads a clock or the database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from app.core.clock import DAY_MS, HOUR_MS
from insights.model import Importance, InsightWeights, Urgency

FREQUENCY_WEIGHT = 0.45
FRESHNESS_WEIGHT = 0.25
RELEVANCE_WEIGHT = 0.20
FAVORITE_WEIGHT = 0.10
DEFAULT_FREQUENCY_MAX = 20  # "log-scaled access count relative to a configured maximum"

# Freshness steps from the spec; past 30 days the spec gives no value, so freshness stops counting.
FRESHNESS_STEPS = ((DAY_MS, 1.0), (7 * DAY_MS, 0.8), (30 * DAY_MS, 0.45))
STALE_FRESHNESS = 0.0

IMPORTANCE_VALUE = {
    Importance.CRITICAL: 1.0,
    Importance.HIGH: 0.75,
    Importance.MEDIUM: 0.5,
    Importance.LOW: 0.25,
}
URGENCY_VALUE = {Urgency.IMMEDIATE: 1.0, Urgency.URGENT: 0.75, Urgency.MEDIUM: 0.5, Urgency.LOW: 0.25}

MULTIPLIER_CAP = 5.0
FAVORITE_BOOST = 1.5
FAVORITE_BOOST_MS = 7 * DAY_MS
VIEW_BOOST = 1.1
VIEW_BOOST_MS = 24 * HOUR_MS
VIEW_BOOST_MIN_INACTIVE_MS = DAY_MS  # "only applied after > 1 day of inactivity"
DECAY_STEPS = ((30 * DAY_MS, 0.7), (14 * DAY_MS, 0.85), (7 * DAY_MS, 0.95))  # longest first
DECAY_FLOOR = 0.3


@dataclass(frozen=True, slots=True)
class ValueScore:
    frequency: float
    freshness: float
    relevance: float
    favorite: float

    @property
    def total(self) -> float:
        return (
            FREQUENCY_WEIGHT * self.frequency
            + FRESHNESS_WEIGHT * self.freshness
            + RELEVANCE_WEIGHT * self.relevance
            + FAVORITE_WEIGHT * self.favorite
        )

    def to_dict(self) -> dict[str, float]:
        return {
            "frequencyScore": round(self.frequency, 6),
            "freshnessScore": round(self.freshness, 6),
            "relevanceScore": round(self.relevance, 6),
            "favoriteScore": round(self.favorite, 6),
            "valueScore": round(self.total, 6),
        }


def frequency_score(access_count_30d: int, max_count: int = DEFAULT_FREQUENCY_MAX) -> float:
    """log(1 + n) / log(1 + max), capped at 1."""
    if access_count_30d <= 0:
        return 0.0
    return min(1.0, math.log1p(access_count_30d) / math.log1p(max(1, max_count)))


def freshness_score(updated_at: int, now: int) -> float:
    age = max(0, now - updated_at)
    for limit, value in FRESHNESS_STEPS:
        if age < limit:
            return value
    return STALE_FRESHNESS


def relevance_score(importance: Importance, urgency: Urgency) -> float:
    return IMPORTANCE_VALUE[importance] * 0.7 + URGENCY_VALUE[urgency] * 0.3


def value_score(
    *,
    access_count_30d: int,
    updated_at: int,
    importance: Importance,
    urgency: Urgency,
    favorite: bool,
    now: int,
    frequency_max: int = DEFAULT_FREQUENCY_MAX,
) -> ValueScore:
    return ValueScore(
        frequency=frequency_score(access_count_30d, frequency_max),
        freshness=freshness_score(updated_at, now),
        relevance=relevance_score(importance, urgency),
        favorite=1.0 if favorite else 0.0,
    )


# -- weight adjustment -------------------------------------------------------------------------------
def last_interaction(weights: InsightWeights, created_at: int) -> int:
    """Inactivity is measured from the newest of: creation, last view, favoriting."""
    return max(x for x in (created_at, weights.last_viewed_at, weights.favorited_at) if x is not None)


def on_favorite(weights: InsightWeights, now: int) -> InsightWeights:
    return replace(weights, favorite=True, favorited_at=now)


def on_unfavorite(weights: InsightWeights) -> InsightWeights:
    return replace(weights, favorite=False, favorited_at=None)


def on_view(weights: InsightWeights, now: int, created_at: int) -> InsightWeights:
    """A view refreshes activity; it starts a view boost only after more than a day without activity."""
    inactive = now - last_interaction(weights, created_at)
    boost_at = now if inactive > VIEW_BOOST_MIN_INACTIVE_MS else weights.view_boost_at
    return replace(weights, last_viewed_at=now, view_boost_at=boost_at)


def decay_rate(inactive_ms: int) -> float:
    for limit, rate in DECAY_STEPS:
        if inactive_ms >= limit:
            return rate
    return 1.0


def effective_multiplier(weights: InsightWeights, now: int, created_at: int) -> float:
    """customWeightMultiplier with the live boosts (each min(5.0, w × factor)) and inactivity decay.

    Decay is one factor for the inactivity bracket (not compounded per run), so the result depends
    only on the recorded events and `now`; the floor keeps a decayed insight at 0.3 or above, but
    never lifts a multiplier the user set lower.
    """
    w = weights.custom_weight_multiplier
    favorited_at = weights.favorited_at
    if weights.favorite and favorited_at is not None and now - favorited_at < FAVORITE_BOOST_MS:
        w = min(MULTIPLIER_CAP, w * FAVORITE_BOOST)
    if weights.view_boost_at is not None and now - weights.view_boost_at < VIEW_BOOST_MS:
        w = min(MULTIPLIER_CAP, w * VIEW_BOOST)
    rate = decay_rate(now - last_interaction(weights, created_at))
    if rate < 1.0:
        w = min(w, max(DECAY_FLOOR, w * rate))
    return w


def ranking_score(value: ValueScore, multiplier: float) -> float:
    return value.total * multiplier


def state(access_count_30d: int) -> str:
    """Spec: active when accessCount30d > 0, else dormant."""
    return "active" if access_count_30d > 0 else "dormant"
