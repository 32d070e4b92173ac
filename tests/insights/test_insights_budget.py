"""One insight run costs what its new messages cost: bounded context, a message budget, resumable
cursors, and the scheduled job's catch-up run (real SQLite + LanceDB, a real APScheduler)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from insights_eval_loader import load_harness

from app.bootstrap import Services, build_services
from app.core.clock import HOUR_MS, FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import ConfigError
from app.core.settings import InsightSettings, Settings, load_settings
from app.services.insights_jobs import JOB_ID, catch_up, register_insights_job, run_generation
from insights import reading

harness = load_harness()
START = 1_774_915_200_000  # 2026-03-31T00:00:00Z
MINUTE_MS = 60_000


def _services(settings: Settings) -> Services:
    settings = settings.model_copy(update={"insights": InsightSettings(identities=["alex"])})
    return build_services(settings, clock=FixedClock(START), embedder=HashingEmbedder())


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    services = _services(settings)
    yield services
    services.close()


def _harness(services: Services) -> None:
    raw = [
        RawMessage(platform=m.platform, message_id=m.message_id, channel=m.channel, person=m.person,
                   timestamp=m.timestamp, content=m.content)
        for c in harness.load() for m in c.messages
    ]  # fmt: skip
    assert not services.memory.ingest(raw).errors


def _chatter(n: int, start: int, prefix: str, every: int = 2 * MINUTE_MS) -> list[RawMessage]:
    people = ["ben", "maria", "alex"]
    return [
        RawMessage(platform="slack", message_id=f"{prefix}-{i}", channel="ops", person=people[i % 3],
                   timestamp=start + i * every, content=f"status note {i}: the backup job ran fine")
        for i in range(n)
    ]  # fmt: skip


def test_context_is_bounded_around_new_messages() -> None:
    ordered = [(i, i * MINUTE_MS) for i in range(1000)]
    kept = reading.context_ids(ordered, {500}, count=10, span_ms=HOUR_MS)
    assert kept == set(range(490, 500)) | set(range(501, 511))  # ten each side, not the channel
    far = reading.context_ids(ordered, {500}, count=200, span_ms=5 * MINUTE_MS)
    assert far == {495, 496, 497, 498, 499, 501, 502, 503, 504, 505}  # the time bound wins
    assert reading.context_ids(ordered, set()) == set()


def test_a_small_import_reads_its_messages_not_the_archive(svc: Services) -> None:
    old = START - 30 * 24 * HOUR_MS
    assert not svc.memory.ingest(_chatter(700, old, "old")).errors  # ~23 hours of one channel
    first = svc.insights.generate()
    assert first.analysed == 700 and first.pending == 0

    # Appended at the end: the run reads them and at most CONTEXT_MESSAGES before them.
    tail = _chatter(5, old + 701 * 2 * MINUTE_MS, "tail")
    svc.memory.ingest(tail)
    appended = svc.insights.generate()
    assert appended.analysed == 5
    assert appended.messages_read <= 5 + reading.CONTEXT_MESSAGES

    # Back-filled into the middle: context on both sides, still not the 14 days the old code read.
    question = RawMessage(
        platform="slack", message_id="mid-q", channel="ops", person="maria",
        timestamp=old + 300 * 2 * MINUTE_MS + 30_000, content="@ben can you check the restore script?",
    )  # fmt: skip
    answer = RawMessage(
        platform="slack", message_id="mid-a", channel="ops", person="ben",
        timestamp=old + 300 * 2 * MINUTE_MS + 60_000, content="yes, the restore script works",
    )  # fmt: skip
    svc.memory.ingest([question, answer])
    middle = svc.insights.generate()
    assert middle.analysed == 2 and middle.messages_read <= 2 + 2 * reading.CONTEXT_MESSAGES
    asked = [
        r for r in svc.insights.list_insights(limit=500, lifecycle_state="all")
        if "mid-q" in r.insight.draft.evidence
    ]  # fmt: skip
    assert asked, "the back-filled question was analysed"
    assert all("mid-a" in r.insight.draft.evidence for r in asked if r.insight.kind.value == "question")


def test_a_budget_stops_the_run_and_the_next_resumes(
    svc: Services, settings: Settings, tmp_path: Path
) -> None:
    _harness(svc)
    total = len([m for c in harness.load() for m in c.messages])
    runs = []
    while True:
        report = svc.insights.generate(limit=40)
        runs.append(report)
        assert report.analysed <= 40
        if not report.pending:
            break
        assert report.analysed + report.pending <= total
    assert sum(r.analysed for r in runs) == total and len(runs) >= total // 40
    assert svc.insights.generate().analysed == 0  # every cursor is at the end

    # The same archive in one unbounded run gives the same insights.
    other = _services(settings.model_copy(update={"data_dir": tmp_path / "other"}))
    try:
        _harness(other)
        other.insights.generate()

        def summary(s: Services) -> set[tuple[str, str, str]]:
            items = s.insights.list_insights(limit=500, lifecycle_state="all")
            return {(r.id, r.insight.draft.status.value, r.insight.draft.title) for r in items}

        assert summary(svc) == summary(other)
    finally:
        other.close()


def test_the_scheduled_job_catches_up_then_keeps_its_interval(svc: Services) -> None:
    _harness(svc)
    scheduler = BackgroundScheduler(timezone="UTC")
    scheduler.start(paused=True)
    try:
        job = register_insights_job(scheduler, svc.insights, minutes=60, max_messages=30)
        assert job.next_run_time > datetime.now(UTC) + timedelta(minutes=59)
        report = run_generation(svc.insights, limit=30, scheduler=scheduler)
        assert report["analysed"] == 30 and report["pending"] > 0
        soon = scheduler.get_job(JOB_ID).next_run_time
        assert soon <= datetime.now(UTC) + timedelta(seconds=61)  # brought forward: the rest follows

        scheduler.pause_job(JOB_ID)  # paused by the person: a catch-up does not resume it
        assert not catch_up(scheduler)
        assert scheduler.get_job(JOB_ID).next_run_time is None
        scheduler.resume_job(JOB_ID)

        rest = run_generation(svc.insights, scheduler=scheduler)  # no limit: everything left
        assert rest["pending"] == 0 and rest["analysed"] == report["pending"]
    finally:
        scheduler.shutdown(wait=False)


def test_the_budget_setting_is_checked(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text("[insights]\nmax_messages_per_run = 10\n")
    with pytest.raises(ConfigError, match="max_messages_per_run"):
        load_settings(tmp_path)
