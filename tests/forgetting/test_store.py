"""The index-driven candidate scan picks exactly what plan() would pick from every record."""

from __future__ import annotations

import random

from sqlalchemy import select, text, update

from app.core.clock import DAY_MS, FixedClock
from app.core.domain import RawMessage
from app.core.storage.messages import to_record
from app.core.storage.models import RawMessageRow
from forgetting import store
from forgetting.config import ForgetConfig
from forgetting.planner import plan
from tests.forgetting.factory import NOW


def test_scan_matches_plan_over_all_records(services) -> None:
    rng = random.Random(7)
    messages = [
        RawMessage(
            platform=rng.choice(["slack", "discord"]),
            message_id=f"r{i}",
            channel=rng.choice(["a", "b"]),
            person=rng.choice(["p", "q"]),
            bot_id=rng.choice([None, "bot"]),
            timestamp=NOW - rng.randint(0, 200) * DAY_MS - rng.randint(0, DAY_MS - 1),
            content=f"message {i} about topic {rng.randint(0, 9)}",
        )
        for i in range(900)
    ]
    services.memory.ingest(messages)
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id % 3 == 0).values(memory_stage="mid"))
        session.execute(update(RawMessageRow).where(RawMessageRow.id % 17 == 0).values(archived_at=NOW))
    config = ForgetConfig(max_candidates_per_tier=40)
    clock = FixedClock(NOW)
    with services.db.read() as session:
        everything = [to_record(r) for r in session.scalars(select(RawMessageRow))]
        scanned = []
        left_out = {}
        for rule in config.rules:
            scan = store.scan_candidates(session, "local", rule, config, NOW)
            scanned.extend(scan.records)
            left_out[rule.source] = (scan.skipped, scan.deferred)
    full = plan(everything, clock, config)
    fast = plan(scanned, clock, config).with_scan_counts(left_out)
    assert [g.summary_id for g in fast.groups] == [g.summary_id for g in full.groups]
    assert fast.tiers == full.tiers
    assert sum(t.evaluated for t in full.tiers) > 0 and sum(t.skipped for t in full.tiers) > 0


def test_scan_uses_the_forget_index(services) -> None:
    with services.db.read() as session:
        rows = session.execute(
            text(
                "EXPLAIN QUERY PLAN SELECT id FROM raw_messages WHERE user_id = 'local' "
                "AND memory_stage = 'short' AND archived_at IS NULL AND timestamp < 5"
            )
        ).all()
    assert "ix_raw_messages_forget_scan" in " ".join(str(r[-1]) for r in rows)
