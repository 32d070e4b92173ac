"""Forgetting on real SQLite + LanceDB: apply, archive visibility, vectors, audit, undo, retention."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from app.core.domain import SearchFilters, Tier
from app.core.errors import Conflict, NotFound
from app.core.index.message_kind import encode_row
from app.core.storage.models import AuditRow, MemorySummaryRow, RawMessageRow
from forgetting.models import ForgetRunItemRow, ForgetRunRow
from forgetting.planner import ForgetPlan
from tests.forgetting.conftest import seed_group

DECISION = [
    "We decided to migrate billing to the new ledger service next sprint.",
    "The migration deadline is the fifteenth; Carol owns the ledger rollback plan.",
    "Risk: the ledger export may double count refunds during the cutover.",
]


def _rows(services, ids):
    with services.db.read() as session:
        return {r.id: r for r in session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(ids)))}


def test_run_summarizes_archives_and_links(services) -> None:
    old = seed_group(services, day=10, texts=DECISION)
    young = seed_group(services, day=2)
    report = services.forgetting.run()
    assert report.status == "completed", report
    short = report.tiers[0]
    assert (short.evaluated, short.archived, short.summarized, short.promoted) == (3, 3, 1, 0)
    rows = _rows(services, old + young)
    sid = rows[old[0]].summary_ref_id
    assert sid and sid.startswith("ms_")
    assert all(rows[i].summary_ref_id == sid and rows[i].archived_at is not None for i in old)
    assert all(rows[i].summary_ref_id is None and rows[i].archived_at is None for i in young)
    # Verbatim text kept, hidden from the normal view, restorable.
    assert services.memory.get(old[0]).content is None
    assert services.memory.get(old[0], reveal_archived=True).content == DECISION[0]
    with services.db.read() as session:
        summary = session.get(MemorySummaryRow, sid)
        audit = session.scalars(select(AuditRow).where(AuditRow.action == "forget_group")).all()
        run = session.get(ForgetRunRow, report.run_id)
    assert summary.summary_tier == "L1" and summary.source_tier == "short"
    assert summary.source_record_ids == sorted(old)
    assert summary.message_count == 3
    assert summary.dimensions == {"platform": "slack", "channel": "general", "person": "alice", "botId": None}
    assert summary.key_points and all("[#" in k for k in summary.key_points)
    assert summary.keywords_text == " ".join(summary.keywords)
    assert 0 < summary.quality_score <= 1
    assert summary.embedding_content_hash  # embedded and searchable
    assert audit[0].details["runId"] == report.run_id and sorted(audit[0].details["archived"]) == sorted(old)
    assert run.status == "completed" and run.summary_ids == [sid]


def test_archived_hidden_from_search_and_summary_fallback(services) -> None:
    seed_group(services, day=10, texts=DECISION)
    services.forgetting.run()
    hits = services.memory.search("ledger rollback plan", limit=5)
    assert hits and all(h.kind == "summary" for h in hits)
    assert "ledger" in hits[0].content
    assert hits[0].extra["source_record_ids"]
    with_archived = services.memory.search("ledger rollback", SearchFilters(include_archived=True), limit=5)
    assert any(h.kind == "message" for h in with_archived)


def test_promotion_changes_tier_and_refreshes_vectors(services) -> None:
    ids = seed_group(services, day=10, texts=DECISION)
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id.in_(ids)).values(access_count=9))
    report = services.forgetting.run()
    assert report.tiers[0].promoted == 3
    rows = _rows(services, ids)
    for row in rows.values():
        assert row.memory_stage == "mid" and row.archived_at is None
        assert row.embedding_content_hash == encode_row(row).content_hash  # re-embedded with "Tier: mid"
    assert services.memory.get(ids[0]).content == DECISION[0]


def test_pinned_never_archived_and_keep_forever(services, settings, clock) -> None:
    from app.bootstrap import build_services
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.settings import RetentionRuleSettings

    ids = seed_group(services, day=10, texts=DECISION)
    services.memory.pin(ids[1])
    kept = seed_group(services, day=12, channel="family")
    services.close()
    settings.forgetting.retention = [RetentionRuleSettings(channel="family", keep_forever=True)]
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        report = svc.forgetting.run()
        rows = _rows(svc, ids + kept)
        assert rows[ids[1]].archived_at is None and rows[ids[1]].memory_stage == "mid"
        assert rows[ids[0]].archived_at is not None
        assert all(rows[i].archived_at is None and rows[i].memory_stage == "mid" for i in kept)
        assert report.tiers[0].summarized == 2
    finally:
        svc.close()


def test_dry_run_and_preview_change_nothing(services) -> None:
    ids = seed_group(services, day=10, texts=DECISION)
    preview = services.forgetting.preview()
    assert isinstance(preview, ForgetPlan) and len(preview.groups) == 1
    report = services.forgetting.run(dry_run=True)
    assert report.status == "dry_run" and report.tiers[0].archived == 3
    rows = _rows(services, ids)
    assert all(r.archived_at is None and r.summary_ref_id is None for r in rows.values())
    with services.db.read() as session:
        assert session.scalars(select(MemorySummaryRow)).all() == []


def test_second_run_finds_nothing_and_small_groups_are_skipped(services) -> None:
    seed_group(services, day=10, texts=DECISION)
    seed_group(services, day=11, n=2, channel="tiny")
    first = services.forgetting.run()
    assert first.tiers[0].skipped == 2
    second = services.forgetting.run()
    assert second.status == "completed"
    assert second.tiers[0].summarized == 0 and second.tiers[0].skipped == 2


def test_mid_to_long_creates_l2(services) -> None:
    ids = seed_group(services, day=120, texts=DECISION)
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id.in_(ids)).values(memory_stage="mid"))
    report = services.forgetting.run()
    assert report.tiers[1].tier is Tier.MID and report.tiers[1].summarized == 1
    with services.db.read() as session:
        assert session.scalars(select(MemorySummaryRow.summary_tier)).all() == ["L2"]


def test_undo_restores_everything(services) -> None:
    ids = seed_group(services, day=10, texts=DECISION)
    report = services.forgetting.run()
    undo = services.forgetting.undo(report.run_id)
    assert (undo.status, undo.restored, undo.unarchived, undo.summaries_removed) == ("undone", 3, 3, 1)
    rows = _rows(services, ids)
    assert all(
        r.archived_at is None and r.summary_ref_id is None and r.memory_stage == "short"
        for r in rows.values()
    )
    with services.db.read() as session:
        assert session.scalars(select(MemorySummaryRow)).all() == []
        assert session.get(ForgetRunRow, report.run_id).undone_at is not None
    assert services.forgetting.summaries.collection.count() == 0
    assert services.memory.search("ledger rollback plan", limit=3)[0].kind == "message"
    assert services.forgetting.undo(report.run_id).status == "already_undone"
    with pytest.raises(NotFound):
        services.forgetting.undo("fr_nope")


def test_undo_refuses_when_a_later_run_moved_the_records(services) -> None:
    ids = seed_group(services, day=120, texts=DECISION)
    with services.db.write() as session:
        session.execute(
            update(RawMessageRow)
            .where(RawMessageRow.id.in_(ids))
            .values(access_count=9, importance_score=1.0)
        )
    first = services.forgetting.run()  # short → mid: 0.35·(60/180) + 0.30 + 0.25 + 0.025 ≈ 0.69
    assert first.tiers[0].promoted == 3
    second = services.forgetting.run()  # mid → long
    assert second.tiers[1].summarized == 1
    with pytest.raises(Conflict):
        services.forgetting.undo(first.run_id)
    services.forgetting.undo(second.run_id)
    services.forgetting.undo(first.run_id)
    rows = _rows(services, ids)
    assert all(r.memory_stage == "short" and r.summary_ref_id is None for r in rows.values())


def test_group_changed_since_plan_is_reported_and_left(services) -> None:
    ids = seed_group(services, day=10, texts=DECISION)
    seed_group(services, day=11, texts=DECISION, channel="other")

    def sabotage(group):
        if group.dimensions["channel"] == "general":
            services.memory.delete(ids[0])

    services.forgetting.runner.before_group = sabotage
    report = services.forgetting.run()
    assert report.status == "completed_with_errors"
    assert report.tiers[0].summarized == 1 and report.tiers[0].failed == 1
    assert "changed since the plan" in report.errors[0]["reason"]
    rows = _rows(services, ids[1:])
    assert all(r.summary_ref_id is None for r in rows.values())


def test_run_items_record_previous_state(services) -> None:
    seed_group(services, day=10, texts=DECISION)
    report = services.forgetting.run()
    with services.db.read() as session:
        items = session.scalars(
            select(ForgetRunItemRow).where(ForgetRunItemRow.run_id == report.run_id)
        ).all()
    assert {(i.action, i.prev_stage, i.new_stage, i.prev_summary_ref_id) for i in items} == {
        ("archive", "short", "short", None)
    }
