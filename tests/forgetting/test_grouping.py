"""Candidate selection and grouping edge cases: age boundaries, buckets, dimensions, size, cap."""

from __future__ import annotations

import random

from app.core.clock import DAY_MS, HOUR_MS
from app.core.domain import Tier
from forgetting.config import DEFAULT_RULES
from forgetting.grouping import bucket_start, choose, group_candidates, is_candidate
from tests.forgetting.factory import NOW

SHORT, MID = DEFAULT_RULES


def test_age_boundary_is_strict(make_record) -> None:
    assert not is_candidate(make_record(age_ms=7 * DAY_MS), SHORT, NOW)
    assert is_candidate(make_record(age_ms=7 * DAY_MS + 1), SHORT, NOW)
    assert not is_candidate(make_record(age_ms=90 * DAY_MS, tier=Tier.MID), MID, NOW)
    assert is_candidate(make_record(age_ms=90 * DAY_MS + 1, tier=Tier.MID), MID, NOW)


def test_only_source_tier_unarchived_and_not_future(make_record) -> None:
    assert not is_candidate(make_record(age_ms=100 * DAY_MS, tier=Tier.MID), SHORT, NOW)
    assert not is_candidate(make_record(age_ms=400 * DAY_MS, tier=Tier.LONG), MID, NOW)
    assert not is_candidate(make_record(age_ms=30 * DAY_MS, archived_at=NOW), SHORT, NOW)
    assert not is_candidate(make_record(age_ms=-5 * DAY_MS), SHORT, NOW)


def test_day_buckets_split_at_utc_midnight() -> None:
    midnight = NOW - 10 * DAY_MS
    assert bucket_start(midnight, SHORT) == midnight
    assert bucket_start(midnight + DAY_MS - 1, SHORT) == midnight
    assert bucket_start(midnight - 1, SHORT) == midnight - DAY_MS


def test_week_buckets_start_on_monday() -> None:
    monday = NOW - 98 * DAY_MS  # NOW is a Monday; 14 weeks earlier too
    assert bucket_start(monday, MID) == monday
    assert bucket_start(monday + 7 * DAY_MS - 1, MID) == monday
    assert bucket_start(monday - 1, MID) == monday - 7 * DAY_MS


def test_groups_need_same_bucket_and_dimensions(make_record) -> None:
    base = 10 * DAY_MS
    records = [
        make_record(age_ms=base - h * HOUR_MS)
        for h in range(3)  # same day, same dimensions
    ] + [
        make_record(age_ms=base - 1 * HOUR_MS, channel="random"),
        make_record(age_ms=base - 2 * HOUR_MS, person="bob"),
        make_record(age_ms=base - 3 * HOUR_MS, bot_id="b1"),
        make_record(age_ms=base - 4 * HOUR_MS, platform="discord"),
    ]
    grouping = group_candidates(records, SHORT, min_size=3, cap=500)
    assert [len(g.records) for g in grouping.groups] == [3]
    assert grouping.skipped_small == 4
    assert grouping.groups[0].key == ("slack", "general", "alice", "")


def test_minimum_group_size_boundary(make_record) -> None:
    two = [make_record(age_ms=10 * DAY_MS + HOUR_MS + i) for i in range(2)]
    three = [make_record(age_ms=20 * DAY_MS + HOUR_MS + i) for i in range(3)]
    grouping = group_candidates(two + three, SHORT, min_size=3, cap=500)
    assert [len(g.records) for g in grouping.groups] == [3]
    assert grouping.skipped_small == 2


def test_day_boundary_splits_a_run_of_messages(make_record) -> None:
    # 00:00 of a day: two messages just before midnight, two just after → two groups of 2, both skipped.
    day = 20 * DAY_MS
    records = [make_record(age_ms=day + d) for d in (1, 2)] + [make_record(age_ms=day - d) for d in (0, 1)]
    grouping = group_candidates(records, SHORT, min_size=3, cap=500)
    assert grouping.groups == ()
    assert grouping.skipped_small == 4


def test_cap_takes_whole_groups_oldest_first(make_record) -> None:
    records = [make_record(age_ms=(30 - day) * DAY_MS + HOUR_MS + i) for day in range(4) for i in range(4)]
    grouping = group_candidates(records, SHORT, min_size=3, cap=10)
    assert [len(g.records) for g in grouping.groups] == [4, 4]
    assert grouping.deferred == 8
    assert grouping.groups[0].bucket_start < grouping.groups[1].bucket_start


def test_oversized_group_is_cut_leaving_a_valid_remainder(make_record) -> None:
    records = [make_record(age_ms=30 * DAY_MS + HOUR_MS + i) for i in range(11)]
    grouping = group_candidates(records, SHORT, min_size=3, cap=10)
    # 10 would leave 1 behind (a group too small to ever run): take 8, leave 3.
    assert [len(g.records) for g in grouping.groups] == [8]
    assert grouping.deferred == 3
    exact = group_candidates(records[:10], SHORT, min_size=3, cap=10)
    assert [len(g.records) for g in exact.groups] == [10]
    big = group_candidates(
        [make_record(age_ms=40 * DAY_MS + HOUR_MS + i) for i in range(25)], SHORT, min_size=3, cap=10
    )
    assert [len(g.records) for g in big.groups] == [10]
    assert big.deferred == 15


def test_group_records_are_oldest_first(make_record) -> None:
    records = [make_record(age_ms=10 * DAY_MS - h * HOUR_MS) for h in (3, 1, 2)]
    group = group_candidates(records, SHORT, min_size=3, cap=500).groups[0]
    assert [r.timestamp for r in group.records] == sorted(r.timestamp for r in records)
    assert group.bucket_end == group.bucket_start + DAY_MS - 1


def test_choose_from_a_sorted_stream_with_sql_totals_matches_choose_over_everything() -> None:
    """The storage scan feeds only groups of at least min_size, in order, with their total counted
    in SQL, and stops at the first deferred group: same picks and counts as the full list."""
    rng = random.Random(3)
    for _ in range(200):
        sizes = [
            (rng.randint(0, 30), (rng.choice("ab"), "c", "p", ""), rng.choice([1, 2, 3, 4, 7, 40, 900]))
            for _ in range(rng.randint(0, 40))
        ]
        sizes = list({(s, k): n for s, k, n in sizes}.items())
        sizes = [(s, k, n) for (s, k), n in sizes]
        cap, min_size = rng.choice([10, 50, 500]), 3
        full = choose(sizes, min_size=min_size, cap=cap)
        big = sorted((t for t in sizes if t[2] >= min_size), key=lambda t: (t[0], t[1]))
        picks, _, deferred = choose(
            iter(big), min_size=min_size, cap=cap, presorted=True, sized_total=sum(t[2] for t in big)
        )
        small = sum(t[2] for t in sizes if t[2] < min_size)
        assert (picks, small, deferred) == full
