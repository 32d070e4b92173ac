"""plan(): promotion/archive decisions at threshold boundaries, protection rules, ids, counts."""

from __future__ import annotations

import math

import pytest

from app.core.clock import DAY_MS, HOUR_MS, FixedClock
from app.core.domain import Tier
from app.core.errors import ConfigError, InvalidInput
from forgetting.config import DEFAULT_RULES, ForgetConfig, RetentionOverride, TierRule
from forgetting.planner import ARCHIVE, PROMOTE, plan
from forgetting.scoring import score_record
from forgetting.summarizer import RuleBasedSummarizer
from tests.forgetting.factory import NOW

SHORT, MID = DEFAULT_RULES


def _group(make_record, n: int = 3, *, age_ms: int = 10 * DAY_MS + HOUR_MS, **kw):
    return [make_record(age_ms=age_ms + i, **kw) for i in range(n)]


def _with_threshold(rule: TierRule, threshold: float) -> ForgetConfig:
    rules = tuple(
        TierRule(r.source, r.target, r.max_age_ms, threshold, r.bucket_ms, r.bucket_offset_ms)
        if r.source is rule.source
        else r
        for r in DEFAULT_RULES
    )
    return ForgetConfig(rules=rules)


def test_score_exactly_at_threshold_promotes_and_just_below_archives(make_record, clock) -> None:
    records = _group(make_record)
    score = score_record(records[0], NOW).score

    def action(result) -> str:
        return next(d.action for d in result.groups[0].decisions if d.record_id == records[0].id)

    assert action(plan(records, clock, _with_threshold(SHORT, score))) == PROMOTE
    assert action(plan(records, clock, _with_threshold(SHORT, math.nextafter(score, 1.0)))) == ARCHIVE


def test_default_thresholds_natural_records(make_record, clock) -> None:
    # Age 10d, no access, no importance, no media: 0.35*(1-10/180)+0.025 ≈ 0.355 < 0.65 → archive.
    low = plan(_group(make_record), clock)
    assert {d.action for d in low.groups[0].decisions} == {ARCHIVE}
    # Nine reads and a deadline+decision+bug+risk: 0.35*0.944+0.30+0.25+0.025 ≈ 0.905 → promote.
    high = plan(_group(make_record, access_count=9, content="deadline decision bug risk"), clock)
    assert {d.action for d in high.groups[0].decisions} == {PROMOTE}
    # Mid → long at 0.45: age 100d, 9 reads → 0.35*(80/180)+0.30+0.025 ≈ 0.48 → promote.
    mid = plan(_group(make_record, tier=Tier.MID, age_ms=100 * DAY_MS + HOUR_MS, access_count=9), clock)
    assert mid.groups[0].target_tier is Tier.LONG
    assert mid.groups[0].summary_tier == "L2"
    assert {d.action for d in mid.groups[0].decisions} == {PROMOTE}
    mid_low = plan(_group(make_record, tier=Tier.MID, age_ms=100 * DAY_MS + HOUR_MS), clock)
    assert {d.action for d in mid_low.groups[0].decisions} == {ARCHIVE}


def test_pinned_and_keep_forever_are_never_archived(make_record, clock) -> None:
    records = [*_group(make_record, 2), make_record(age_ms=10 * DAY_MS + HOUR_MS + 5, pinned=True)]
    result = plan(records, clock)
    by_id = {d.record_id: d for d in result.groups[0].decisions}
    assert by_id[records[2].id].action == PROMOTE
    # Pinned adds 0.3 (≈0.655 ≥ 0.65), so this one is promoted on score alone.
    assert by_id[records[2].id].reason == "score"
    old_pinned = [make_record(age_ms=170 * DAY_MS + HOUR_MS + i, pinned=True) for i in range(3)]
    result = plan(old_pinned, clock)
    assert {(d.action, d.reason) for d in result.groups[0].decisions} == {(PROMOTE, "pinned")}
    forever = ForgetConfig(retention=(RetentionOverride(channel="general", keep_forever=True),))
    kept = plan(_group(make_record), clock, forever)
    assert {(d.action, d.reason) for d in kept.groups[0].decisions} == {(PROMOTE, "keep_forever")}
    other = plan(_group(make_record, channel="random"), clock, forever)
    assert {d.action for d in other.groups[0].decisions} == {ARCHIVE}


def test_custom_channel_thresholds(make_record, clock) -> None:
    lenient = ForgetConfig(retention=(RetentionOverride(channel="general", short_to_mid_threshold=0.1),))
    assert {d.action for d in plan(_group(make_record), clock, lenient).groups[0].decisions} == {PROMOTE}
    scoped = ForgetConfig(
        retention=(
            RetentionOverride(channel="general", short_to_mid_threshold=0.1),
            RetentionOverride(channel="general", platform="slack", short_to_mid_threshold=0.99),
        )
    )
    decisions = plan(_group(make_record), clock, scoped).groups[0].decisions
    assert {d.threshold for d in decisions} == {0.99}
    with pytest.raises(ConfigError):
        RetentionOverride(channel="x", mid_to_long_threshold=1.5)


def test_summary_ids_are_deterministic_and_input_sensitive(make_record, clock) -> None:
    records = _group(make_record)
    first = plan(records, clock).groups[0].summary_id
    assert first.startswith("ms_")
    assert plan(list(reversed(records)), clock).groups[0].summary_id == first
    assert (
        plan([*records[:2], make_record(age_ms=10 * DAY_MS + HOUR_MS + 9)], clock).groups[0].summary_id
        != first
    )


def test_counts_and_window(make_record, clock) -> None:
    records = [
        *_group(make_record, 4),
        *_group(make_record, 2, channel="tiny"),
        make_record(age_ms=DAY_MS),  # too young
        *_group(make_record, 3, tier=Tier.MID, age_ms=120 * DAY_MS + HOUR_MS),
        *_group(make_record, 3, tier=Tier.LONG, age_ms=400 * DAY_MS),
    ]
    result = plan(records, clock)
    short, mid = result.tiers
    assert (short.tier, short.evaluated, short.archived, short.summarized, short.skipped) == (
        Tier.SHORT,
        4,
        4,
        1,
        2,
    )
    assert (mid.tier, mid.evaluated, mid.summarized, mid.skipped) == (Tier.MID, 3, 1, 0)
    group = result.groups[0]
    assert group.start_timestamp == min(r.timestamp for r in records[:4])
    assert group.end_timestamp == max(r.timestamp for r in records[:4])
    assert group.dimensions == {"platform": "slack", "channel": "general", "person": "alice", "botId": None}
    data = result.to_dict()
    assert data["tiers"][0]["evaluated"] == 4
    assert data["groups"][0]["summary"]["keywordsText"] == " ".join(group.draft.keywords)


def test_cap_applies_per_tier(make_record, clock) -> None:
    config = ForgetConfig(max_candidates_per_tier=6)
    records = [make_record(age_ms=(30 - d) * DAY_MS + HOUR_MS + i) for d in range(3) for i in range(3)]
    records += [make_record(tier=Tier.MID, age_ms=130 * DAY_MS + HOUR_MS + i) for i in range(7)]
    result = plan(records, clock, config)
    assert (result.tiers[0].evaluated, result.tiers[0].deferred) == (6, 3)
    # The mid group of 7 is cut to 4 so the 3 left behind can still form a group next run.
    assert (result.tiers[1].evaluated, result.tiers[1].deferred) == (4, 3)


def test_future_timestamps_and_empty_input(make_record) -> None:
    skewed = FixedClock(NOW - 400 * DAY_MS)  # every record is "in the future" for this clock
    result = plan(_group(make_record, 5), skewed)
    assert result.is_empty
    assert plan([], skewed).tiers[0].evaluated == 0


def test_one_user_per_plan(make_record, clock) -> None:
    mixed = [*_group(make_record), *_group(make_record, user_id="other")]
    with pytest.raises(InvalidInput):
        plan(mixed, clock)
    only_other = plan(mixed, clock, user_id="other")
    assert only_other.user_id == "other"
    assert len(only_other.groups[0].decisions) == 3


def test_config_rejects_cap_below_group_size() -> None:
    with pytest.raises(ConfigError):
        ForgetConfig(max_candidates_per_tier=2)


class _Flaky:
    name = "flaky"

    def summarize(self, records):
        if any("explode" in (r.content or "") for r in records):
            raise RuntimeError("cannot summarize this")
        return RuleBasedSummarizer().summarize(records)


def test_summarizer_error_on_one_group_is_reported_not_fatal(make_record, clock) -> None:
    good = _group(make_record, 3, age_ms=10 * DAY_MS + HOUR_MS)
    bad = _group(make_record, 3, age_ms=12 * DAY_MS + HOUR_MS, content="explode now please")
    result = plan(good + bad, clock, summarizer=_Flaky())
    assert len(result.groups) == 1
    assert result.tiers[0].failed == 1 and result.tiers[0].summarized == 1
    assert "cannot summarize" in result.errors[0].reason
    assert result.to_dict()["errors"][0]["tier"] == "short"
