"""Every term of the value score at its boundaries, with a fixed clock."""

from __future__ import annotations

import math

import pytest

from app.core.clock import DAY_MS
from forgetting import constants as c
from forgetting.scoring import (
    access_score,
    clamp01,
    importance_hits,
    inferred_importance,
    media_score,
    recency_score,
    score_record,
)
from tests.forgetting.factory import NOW


@pytest.mark.parametrize(
    ("age_ms", "expected"),
    [
        (0, 1.0),
        (90 * DAY_MS, 0.5),
        (45 * DAY_MS, 0.75),
        (180 * DAY_MS, 0.0),
        (180 * DAY_MS + 1, 0.0),
        (3650 * DAY_MS, 0.0),
        (-DAY_MS, 1.0),  # clock skew: a record from the future is brand new, not "more than new"
        (-(10**15), 1.0),
    ],
)
def test_recency(age_ms: int, expected: float) -> None:
    assert recency_score(NOW - age_ms, NOW) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, 0.0),
        (None, 0.0),
        (-5, 0.0),
        (1, math.log(2) / math.log(10)),
        (4, math.log(5) / math.log(10)),
        (8, math.log(9) / math.log(10)),
        (9, 1.0),
        (10, 1.0),
        (10**9, 1.0),
    ],
)
def test_access(count: int | None, expected: float) -> None:
    assert access_score(count) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "hits"),
    [
        ("", 0),
        (None, 0),
        ("lunch plans", 0),
        ("there is a bug", 1),
        ("we debugged it", 0),  # whole words only
        ("two bugs, many bugs", 1),  # a keyword counts once
        ("DEADLINE moved", 1),
        ("follow-up tomorrow", 1),
        ("followup please", 1),
        ("follow up please", 1),
        ("Action Items for today", 1),
        ("my to-do list", 1),
        ("todos", 1),
        ("urgent: risk and blocker", 3),
        ("deadline todo urgent risk", 4),
        ("deadline todo urgent risk decision blocker meeting", 7),
    ],
)
def test_importance_keyword_hits(text: str | None, hits: int) -> None:
    assert len(importance_hits(text)) == hits
    assert inferred_importance(text) == pytest.approx(min(1.0, hits / 4))


def test_every_listed_keyword_is_recognised() -> None:
    assert set(importance_hits(" ; ".join(c.IMPORTANCE_KEYWORDS))) == set(c.IMPORTANCE_KEYWORDS)


def test_media_and_clamp() -> None:
    assert media_score(True) == 0.7
    assert media_score(False) == 0.25
    assert clamp01(-0.1) == 0.0
    assert clamp01(1.2) == 1.0
    assert clamp01(float("nan")) == 0.0


def test_full_formula(make_record) -> None:
    record = make_record(age_ms=36 * DAY_MS, access_count=4, importance=0.1, content="bug and deadline")
    got = score_record(record, NOW)
    recency = 1 - 36 / 180
    access = math.log(5) / math.log(10)
    importance = 0.5  # two keyword hits beat the provided 0.1
    expected = 0.35 * recency + 0.30 * access + 0.25 * importance + 0.10 * 0.25
    assert got.recency == pytest.approx(recency)
    assert got.access == pytest.approx(access)
    assert got.importance == pytest.approx(importance)
    assert got.inferred_importance == pytest.approx(0.5)
    assert got.media == 0.25
    assert got.pinned_boost == 0.0
    assert got.score == pytest.approx(expected)


def test_provided_importance_wins_when_higher(make_record) -> None:
    record = make_record(importance=0.9, content="bug")
    assert score_record(record, NOW).importance == pytest.approx(0.9)


@pytest.mark.parametrize(("provided", "expected"), [(1.7, 1.0), (-3.0, 0.0), (float("nan"), 0.0)])
def test_provided_importance_is_clamped(make_record, provided: float, expected: float) -> None:
    assert score_record(make_record(importance=provided, content=""), NOW).importance == expected


def test_pinned_boost_and_total_clamp(make_record) -> None:
    plain = score_record(make_record(age_ms=0, access_count=9, importance=1.0, media=True), NOW)
    assert plain.score == pytest.approx(0.35 + 0.30 + 0.25 + 0.07)
    pinned = score_record(make_record(age_ms=0, access_count=9, importance=1.0, media=True, pinned=True), NOW)
    assert pinned.pinned_boost == 0.3
    assert pinned.score == 1.0  # 1.27 clamped


def test_minimum_score_is_media_floor(make_record) -> None:
    record = make_record(age_ms=400 * DAY_MS, content=None)
    assert score_record(record, NOW).score == pytest.approx(0.10 * 0.25)


def test_archived_content_none_scores(make_record) -> None:
    assert score_record(make_record(content=None), NOW).inferred_importance == 0.0
