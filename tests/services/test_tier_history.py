"""Tier timeline: messages counted per tier per week bucket."""

from __future__ import annotations

from app.core.clock import DAY_MS
from app.services.tier_history import ARCHIVED, tier_overview, tier_timeline
from tests.conftest import NOW_MS, make_message


def test_counts_land_in_their_week(services):
    msgs = [make_message(i, timestamp=NOW_MS - (i * 3 + 1) * DAY_MS) for i in range(10)]
    msgs.append(make_message(99, timestamp=NOW_MS - 200 * DAY_MS))
    services.memory.ingest(msgs)
    timeline = tier_timeline(services.db, services.settings.user_id, NOW_MS, bucket_days=7, buckets=4)
    assert len(timeline.starts) == 4
    total_short = sum(timeline.counts["short"])
    # 1..28 days back: the 4 weekly buckets hold them all (28 days back = first bucket start).
    in_range = sum(1 for i in range(10) if (i * 3 + 1) <= 28)
    assert total_short == in_range
    assert timeline.counts["short"][-1] == 3  # 1, 4 and 7 days ago → newest bucket (0–7 days)
    assert timeline.older["short"] == 10 - in_range + 1


def test_one_scan_feeds_the_totals_and_the_chart_and_single_counts_match_stats(services):
    memory, user = services.memory, services.settings.user_id
    assert not memory.has_messages() and memory.pinned_and_summaries() == (0, 0)
    totals, timeline = tier_overview(services.db, user)
    assert totals.total == 0 and timeline.starts == ()
    old = NOW_MS - 40 * DAY_MS
    stored = memory.ingest(
        [make_message(i, channel="ops", content=f"backup log {i}", timestamp=old + i) for i in range(6)]
    )
    memory.ingest([make_message(10 + i, timestamp=NOW_MS - i * DAY_MS) for i in range(4)])
    memory.pin(stored.ids[1])
    services.forgetting.run()
    totals, timeline = tier_overview(services.db, user)
    assert totals.total == 10 == sum(sum(series) for series in timeline.counts.values())
    assert sum(totals.archived.values()) == sum(timeline.counts[ARCHIVED]) > 0  # the run archived some
    for tier, kept in totals.kept.items():
        assert kept == sum(timeline.counts[tier])
    stats = memory.stats()
    assert memory.has_messages() and memory.pinned_and_summaries() == (stats["pinned"], stats["summaries"])
    assert memory.embedding_model() == (stats["embedding_model"], stats["embedding_dimensions"])
