"""Forgetting without surprises: big scheduled runs wait, undone records stay, a dead host shows as dead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.main import cli
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import NotFound
from app.core.storage.models import RawMessageRow
from forgetting import schedule
from forgetting.models import ForgetScheduleRow
from forgetting.pending import SNOOZE_MS
from tests.conftest import PROJECT_ROOT
from tests.forgetting.conftest import seed_group
from tests.forgetting.factory import NOW


def _archived(svc) -> int:
    with svc.db.read() as session:
        return int(
            session.scalar(
                select(func.count()).select_from(RawMessageRow).where(RawMessageRow.archived_at.is_not(None))
            )
        )


@pytest.fixture
def small_limit(settings, clock):
    settings.forgetting.confirm_above_records = 4
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield svc
    svc.close()


def test_a_big_scheduled_run_waits_for_the_user(small_limit, cli_env) -> None:
    svc = small_limit
    for day in (20, 21):
        seed_group(svc, day=day, n=3)  # 6 records would be archived, the limit is 4
    [report] = svc.forgetting.run_scheduled()
    assert report.status == "awaiting_confirmation" and _archived(svc) == 0
    waiting = svc.forgetting.status()["pendingPlan"]
    assert waiting["archive"] == 6 and waiting["summaries"] == 2 and "forget dismiss" in waiting["message"]
    [again] = svc.forgetting.run_scheduled()  # the next cycle refreshes the same notice
    assert again.run_id == report.run_id and len(svc.forgetting.runs()) == 1
    shown = CliRunner().invoke(cli, ["--data-dir", str(svc.layout.root), "forget", "status"])
    said = " ".join(shown.output.split())
    assert "waiting for you: a scheduled run would archive 6 records" in said and "forget dismiss" in said

    dismissed = svc.forgetting.dismiss_pending()
    assert dismissed["status"] == "dismissed" and svc.forgetting.status()["pendingPlan"] is None
    [snoozed] = svc.forgetting.run_scheduled()
    assert snoozed.status == "snoozed" and _archived(svc) == 0
    with pytest.raises(NotFound):
        svc.forgetting.dismiss_pending()

    svc.clock = svc.forgetting.clock = svc.forgetting.pending.clock = FixedClock(NOW + SNOOZE_MS + 1)
    [later] = svc.forgetting.run_scheduled()
    assert later.status == "awaiting_confirmation"  # a day later it asks again, still applying nothing

    manual = svc.forgetting.run(trigger="ui")  # the user said "run"
    assert manual.status == "completed" and _archived(svc) == 6
    assert svc.forgetting.status()["pendingPlan"] is None


def test_a_small_scheduled_run_applies_and_undone_records_stay(services) -> None:
    seed_group(services, day=20, n=3)
    [report] = services.forgetting.run_scheduled()
    assert report.status == "completed" and _archived(services) == 3
    services.forgetting.undo(report.run_id)
    [next_run] = services.forgetting.run_scheduled()
    assert next_run.status == "completed" and sum(t.archived for t in next_run.tiers) == 0
    assert _archived(services) == 0  # not archived again behind the user's back
    assert services.forgetting.status()["pendingCandidates"]["short"] == 0
    asked = services.forgetting.run(include_undone=True)
    assert asked.status == "completed" and _archived(services) == 3


HOST_SCRIPT = """
import sys, time
from apscheduler.schedulers.background import BackgroundScheduler
from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.main import cli
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import load_settings
svc = build_services(load_settings(), embedder=HashingEmbedder())
scheduler = BackgroundScheduler(timezone="UTC")
svc.forgetting.schedule(scheduler, first_run_in_seconds=3600)
print("scheduled", flush=True)
time.sleep(120)
"""


def test_status_notices_a_killed_scheduler_host(data_dir, cli_env) -> None:
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT],
        cwd=PROJECT_ROOT,
        env={**os.environ},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "scheduled"
        svc = build_services(embedder=HashingEmbedder(), data_dir=data_dir)
        try:
            alive = svc.forgetting.status()["scheduler"]
            assert alive["active"] is True and alive["pid"] == host.pid
            host.send_signal(signal.SIGKILL)
            host.wait(timeout=10)
            dead = svc.forgetting.status()["scheduler"]
            assert dead["active"] is False and dead["nextRunAt"] is None
        finally:
            svc.close()
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def test_a_silent_host_elsewhere_goes_stale_after_three_heartbeats(services) -> None:
    schedule.record(services.db, services.clock, interval_minutes=60, next_run_at=NOW + 3_600_000)
    with services.db.write() as session:
        session.get(ForgetScheduleRow, schedule.JOB_ID).host = "another-computer"
    fresh = FixedClock(services.clock.now_ms() + schedule.STALE_AFTER_MS - 1)
    assert schedule.describe(services.db, fresh)["active"] is True
    late = FixedClock(services.clock.now_ms() + schedule.STALE_AFTER_MS + 1)
    assert schedule.describe(services.db, late)["active"] is False
