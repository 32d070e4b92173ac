"""Tier timeline: messages counted per tier per week bucket."""

from __future__ import annotations

from app.core.clock import DAY_MS
from app.services.tier_history import tier_timeline
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
