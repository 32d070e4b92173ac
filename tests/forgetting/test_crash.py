"""kill -9 in the middle of a group's transaction leaves only whole groups; the next run finishes the job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from sqlalchemy import select

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.message_kind import encode_row
from app.core.storage.models import MemorySummaryRow, RawMessageRow
from forgetting.models import ForgetRunItemRow, ForgetRunRow
from tests.conftest import PROJECT_ROOT
from tests.forgetting.conftest import seed_group
from tests.forgetting.factory import NOW

VICTIM = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from sqlalchemy import event
    from sqlalchemy.orm import Session
    from app.bootstrap import build_services
    from app.core.clock import FixedClock
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.settings import EmbeddingSettings, Settings
    from app.core.storage.models import AuditRow

    flushes = 0

    @event.listens_for(Session, "after_flush")
    def stall(session, context):
        # The third group's writes (summary, tiers, archives, links, items, audit) are all executed
        # inside its transaction; the audit row is flushed last, just before COMMIT.
        global flushes
        if any(isinstance(obj, AuditRow) and obj.action == "forget_group" for obj in session.new):
            flushes += 1
            if flushes == 3:
                Path(sys.argv[3]).touch()
                time.sleep(600)

    settings = Settings(data_dir=Path(sys.argv[1]), embedding=EmbeddingSettings(provider="hashing"))
    clock = FixedClock(int(sys.argv[2]))
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder(), repair=False)
    svc.forgetting.run(trigger="test")
    """
)


def _state(svc):
    with svc.db.read() as session:
        summaries = {s.summary_id: s for s in session.scalars(select(MemorySummaryRow))}
        rows = list(session.scalars(select(RawMessageRow)))
        items = list(session.scalars(select(ForgetRunItemRow)))
        runs = list(session.scalars(select(ForgetRunRow)))
    return summaries, rows, items, runs


def test_kill_9_mid_group(services, settings, tmp_path: Path) -> None:
    for day in range(10, 15):
        seed_group(services, day=day)
    services.close()
    marker = tmp_path / "stalled"
    proc = subprocess.Popen(
        [sys.executable, "-c", VICTIM, str(settings.data_dir), str(NOW), str(marker)], cwd=PROJECT_ROOT
    )
    try:
        deadline = time.time() + 120
        while not marker.exists():
            assert proc.poll() is None, "the victim exited before reaching the third group"
            assert time.time() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)

    # Reopen one minute later, when the dead run's leases have expired, and run the repair job.
    clock = FixedClock(NOW + 61_000)
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder(), repair=True)
    try:
        summaries, rows, items, runs = _state(svc)
        assert len(summaries) == 2  # groups one and two committed, group three rolled back whole
        assert len(items) == 6
        linked = [r for r in rows if r.summary_ref_id is not None]
        assert len(linked) == 6 and all(r.summary_ref_id in summaries for r in linked)
        for summary in summaries.values():
            members = [r for r in rows if r.id in summary.source_record_ids]
            assert len(members) == summary.message_count == 3
            assert all(r.summary_ref_id == summary.summary_id and r.archived_at is not None for r in members)
        untouched = [r for r in rows if r.summary_ref_id is None]
        assert len(untouched) == 9 and all(r.archived_at is None for r in untouched)
        assert all(r.embedding_content_hash == encode_row(r).content_hash for r in rows)
        assert [r.status for r in runs] == ["running"]

        report = svc.forgetting.run()
        assert report.status == "completed"
        assert report.tiers[0].summarized == 3
        summaries, rows, items, runs = _state(svc)
        assert len(summaries) == 5 and all(r.archived_at is not None for r in rows)
        assert {r.status for r in runs} == {"interrupted", "completed"}
        # The interrupted run's complete groups can still be undone.
        dead = next(r for r in runs if r.status == "interrupted")
        assert svc.forgetting.undo(dead.run_id).summaries_removed == 2
    finally:
        svc.close()
