"""Value score, boosts, decay and state at every boundary of the spec's formulas, on a fixed clock."""

from __future__ import annotations

import math

import pytest

from app.core.clock import DAY_MS, HOUR_MS, FixedClock
from insights import scoring as s
from insights.model import Importance, InsightWeights, Urgency

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MS = 1


def test_weights_sum_to_one() -> None:
    total = s.FREQUENCY_WEIGHT + s.FRESHNESS_WEIGHT + s.RELEVANCE_WEIGHT + s.FAVORITE_WEIGHT
    assert total == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, 0.0), (1, math.log(2) / math.log(21)), (20, 1.0), (200, 1.0)],
)
def test_frequency_is_log_scaled_and_capped(count: int, expected: float) -> None:
    assert s.frequency_score(count, max_count=20) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("age", "expected"),
    [
        (0, 1.0),
        (DAY_MS - MS, 1.0),
        (DAY_MS, 0.8),
        (7 * DAY_MS - MS, 0.8),
        (7 * DAY_MS, 0.45),
        (30 * DAY_MS - MS, 0.45),
        (30 * DAY_MS, s.STALE_FRESHNESS),
    ],
)
def test_freshness_steps(age: int, expected: float) -> None:
    assert s.freshness_score(T0, T0 + age) == expected


def test_relevance_is_importance_07_urgency_03() -> None:
    assert s.relevance_score(Importance.CRITICAL, Urgency.IMMEDIATE) == pytest.approx(1.0)
    assert s.relevance_score(Importance.HIGH, Urgency.LOW) == pytest.approx(0.75 * 0.7 + 0.25 * 0.3)
    assert s.relevance_score(Importance.LOW, Urgency.URGENT) == pytest.approx(0.25 * 0.7 + 0.75 * 0.3)


def test_value_score_combines_the_four_signals() -> None:
    v = s.value_score(
        access_count_30d=20, updated_at=T0, importance=Importance.MEDIUM, urgency=Urgency.MEDIUM,
        favorite=True, now=T0 + 2 * DAY_MS,
    )  # fmt: skip
    assert v.total == pytest.approx(0.45 * 1.0 + 0.25 * 0.8 + 0.20 * 0.5 + 0.10 * 1.0)
    assert v.to_dict()["valueScore"] == pytest.approx(v.total)


def _w(**kw: object) -> InsightWeights:
    return InsightWeights(**kw)  # type: ignore[arg-type]


def test_favorite_boost_lasts_seven_days_exactly() -> None:
    w = s.on_favorite(_w(), T0)
    assert s.effective_multiplier(w, T0, T0) == pytest.approx(1.5)
    assert s.effective_multiplier(w, T0 + 7 * DAY_MS - MS, T0) == pytest.approx(1.5)
    assert s.effective_multiplier(w, T0 + 7 * DAY_MS, T0) == pytest.approx(0.95)  # boost over, decay on


def test_boosts_are_capped_at_five() -> None:
    w = s.on_favorite(_w(custom_weight_multiplier=4.0), T0)
    assert s.effective_multiplier(w, T0, T0) == 5.0
    w = s.on_view(_w(custom_weight_multiplier=4.9), T0 + 2 * DAY_MS, T0)
    assert s.effective_multiplier(w, T0 + 2 * DAY_MS, T0) == 5.0


def test_view_boost_only_after_more_than_a_day_inactive() -> None:
    exactly_a_day = s.on_view(_w(), T0 + DAY_MS, T0)
    assert exactly_a_day.view_boost_at is None
    assert s.effective_multiplier(exactly_a_day, T0 + DAY_MS, T0) == 1.0
    after = s.on_view(_w(), T0 + DAY_MS + MS, T0)
    assert after.view_boost_at == T0 + DAY_MS + MS
    assert s.effective_multiplier(after, T0 + DAY_MS + MS, T0) == pytest.approx(1.1)


def test_view_boost_lasts_24_hours() -> None:
    now = T0 + 3 * DAY_MS
    w = s.on_view(_w(), now, T0)
    assert s.effective_multiplier(w, now + 24 * HOUR_MS - MS, T0) == pytest.approx(1.1)
    assert s.effective_multiplier(w, now + 24 * HOUR_MS, T0) == 1.0


def test_a_recent_view_blocks_a_second_view_boost() -> None:
    w = s.on_view(_w(), T0 + 2 * DAY_MS, T0)
    again = s.on_view(w, T0 + 2 * DAY_MS + HOUR_MS, T0)
    assert again.view_boost_at == w.view_boost_at


def test_favorite_and_view_boosts_stack_in_order() -> None:
    w = s.on_favorite(_w(), T0 + 2 * DAY_MS)
    w = s.on_view(w, T0 + 4 * DAY_MS, T0)  # > 1 day since favoriting
    assert s.effective_multiplier(w, T0 + 4 * DAY_MS, T0) == pytest.approx(1.5 * 1.1)


@pytest.mark.parametrize(
    ("inactive", "rate"),
    [
        (7 * DAY_MS - MS, 1.0),
        (7 * DAY_MS, 0.95),
        (14 * DAY_MS - MS, 0.95),
        (14 * DAY_MS, 0.85),
        (30 * DAY_MS - MS, 0.85),
        (30 * DAY_MS, 0.7),
        (400 * DAY_MS, 0.7),
    ],
)
def test_decay_brackets(inactive: int, rate: float) -> None:
    assert s.decay_rate(inactive) == rate
    assert s.effective_multiplier(_w(), T0 + inactive, T0) == pytest.approx(rate)


def test_decay_floor_is_03_but_never_lifts_a_low_custom_multiplier() -> None:
    assert s.effective_multiplier(_w(custom_weight_multiplier=0.4), T0 + 40 * DAY_MS, T0) == pytest.approx(
        0.3
    )
    assert s.effective_multiplier(_w(custom_weight_multiplier=0.2), T0 + 40 * DAY_MS, T0) == pytest.approx(
        0.2
    )


def test_a_view_resets_inactivity() -> None:
    w = s.on_view(_w(), T0 + 20 * DAY_MS, T0)
    assert s.effective_multiplier(w, T0 + 20 * DAY_MS + 23 * HOUR_MS, T0) == pytest.approx(1.1)
    assert s.effective_multiplier(w, T0 + 26 * DAY_MS, T0) == 1.0  # 6 days since the view: no decay yet


def test_unfavorite_drops_boost_and_score() -> None:
    w = s.on_unfavorite(s.on_favorite(_w(), T0))
    assert not w.favorite and s.effective_multiplier(w, T0, T0) == 1.0


def test_state_active_dormant() -> None:
    assert s.state(1) == "active"
    assert s.state(0) == "dormant"


def test_ranking_changes_exactly_with_favorite() -> None:
    clock = FixedClock(T0 + 2 * DAY_MS)
    base = dict(access_count_30d=3, updated_at=T0, importance=Importance.HIGH, urgency=Urgency.LOW)
    plain = s.value_score(**base, favorite=False, now=clock.now_ms())  # type: ignore[arg-type]
    fav = s.value_score(**base, favorite=True, now=clock.now_ms())  # type: ignore[arg-type]
    w = s.on_favorite(_w(), clock.now_ms())
    assert s.ranking_score(fav, s.effective_multiplier(w, clock.now_ms(), T0)) == pytest.approx(
        (plain.total + 0.10) * 1.5
    )
