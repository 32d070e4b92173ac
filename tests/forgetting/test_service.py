"""The forgetting service wiring: LLM summaries through settings, fallback, schedule, disabled, users."""

from __future__ import annotations

import json
import re
import time

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy import select

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import InvalidInput, NotFound
from app.core.settings import LLMSettings
from app.core.storage.models import MemorySummaryRow
from tests.forgetting.conftest import seed_group
from tests.forgetting.fake_openai import completion, fake_openai

TEXTS = [
    "We agreed to freeze the API contract on Friday before the beta.",
    "Beta testers get invites on Monday; Priya sends them.",
    "Known issue: exports time out above ten thousand rows.",
]


def _cite_everything(body: dict) -> tuple[int, dict]:
    ids = [int(x) for x in re.findall(r"^\[(\d+)\]", body["messages"][1]["content"], re.M)]
    answer = {
        "summary": "The team froze the API and planned the beta.",
        "keyPoints": [
            {"text": "API contract frozen Friday; beta invites Monday.", "sourceRecordIds": ids[:2]}
        ],
        "keywords": ["api contract", "beta"],
    }
    return completion(json.dumps(answer))


@pytest.fixture
def llm_services(settings, clock):
    def build(url: str):
        settings.llm = LLMSettings(enabled=True, base_url=url, model="fake-model", timeout_seconds=5)
        return build_services(settings, clock=clock, embedder=HashingEmbedder())

    return build


def test_llm_summaries_when_configured(services, llm_services) -> None:
    ids = seed_group(services, day=10, texts=TEXTS)
    services.close()
    with fake_openai() as server:
        server.reply(_cite_everything)
        svc = llm_services(server.url)
        try:
            assert svc.forgetting.status()["llmSummaries"] is True
            report = svc.forgetting.run()
            with svc.db.read() as session:
                summary = session.scalars(select(MemorySummaryRow)).one()
        finally:
            svc.close()
    assert report.status == "completed" and report.errors == ()
    assert summary.key_points == [f"API contract frozen Friday; beta invites Monday. [#{ids[0]}, #{ids[1]}]"]
    assert summary.keywords == ["api contract", "beta"]
    assert server.requests[0]["body"]["model"] == "fake-model"


def test_llm_failure_falls_back_and_is_reported(services, llm_services) -> None:
    seed_group(services, day=10, texts=TEXTS)
    services.close()
    with fake_openai() as server:  # no replies queued: every call gets HTTP 500
        svc = llm_services(server.url)
        try:
            report = svc.forgetting.run()
            with svc.db.read() as session:
                summary = session.scalars(select(MemorySummaryRow)).one()
        finally:
            svc.close()
    assert report.status == "completed"
    assert report.tiers[0].summarized == 1
    assert report.errors[0]["kind"] == "summarizer_fallback"
    assert "rule-based" in report.errors[0]["reason"]
    assert summary.key_points and summary.summary_text.startswith("3 messages")


def test_schedule_registers_and_runs(services) -> None:
    seed_group(services, day=10)
    scheduler = BackgroundScheduler(timezone="UTC")
    job = services.forgetting.schedule(scheduler, first_run_in_seconds=0.3)
    assert job.max_instances == 1 and job.coalesce is True
    assert job.trigger.interval.total_seconds() == 3600
    status = services.forgetting.status()
    assert status["scheduler"]["active"] is True and status["nextRun"]
    scheduler.start()
    try:
        deadline = time.time() + 60
        while not [
            r for r in services.forgetting.runs() if r.trigger == "schedule" and r.status != "running"
        ]:
            assert time.time() < deadline, "the scheduled run never happened"
            time.sleep(0.1)
    finally:
        scheduler.shutdown(wait=True)
        services.forgetting.unschedule()
    run = services.forgetting.runs()[0]
    assert run.status == "completed" and run.trigger == "schedule"
    after = services.forgetting.status()
    assert after["scheduler"]["lastScheduledStatus"] == "completed"
    assert after["scheduler"]["active"] is False  # the host unscheduled


def test_interval_comes_from_settings_and_disabled_means_no_job(services, settings, clock) -> None:
    services.close()
    settings.forgetting.interval_minutes = 15
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        job = svc.forgetting.schedule(BackgroundScheduler(timezone="UTC"))
        assert job.trigger.interval.total_seconds() == 900
    finally:
        svc.close()
    settings.forgetting.enabled = False
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        assert svc.forgetting.schedule(BackgroundScheduler(timezone="UTC")) is None
        assert [r.status for r in svc.forgetting.run_all()] == ["disabled"]
    finally:
        svc.close()


def test_run_all_covers_every_user(services) -> None:
    seed_group(services, day=10)
    seed_group(services, day=10, user_id="bob", prefix="b")
    reports = services.forgetting.run_all(trigger="schedule")
    assert sorted((r.user_id, r.tiers[0].summarized) for r in reports) == [("bob", 1), ("local", 1)]


def test_summary_of_an_archived_message(services) -> None:
    ids = seed_group(services, day=10, texts=TEXTS)
    report = services.forgetting.run()
    assert report.tiers[0].summarized == 1
    record = services.memory.get(ids[1])
    assert record.archived_at is not None and record.summary_ref_id
    summary = services.forgetting.summary(record.summary_ref_id)
    with services.db.read() as session:
        row = session.scalars(select(MemorySummaryRow)).one()
    assert summary.summary_id == row.summary_id == record.summary_ref_id
    assert summary.summary_text == row.summary_text and summary.summary_text.startswith("3 messages")
    assert summary.message_count == 3 and sorted(summary.source_record_ids) == sorted(ids)
    assert summary.start_timestamp < summary.end_timestamp
    assert (summary.channel, summary.person) == ("general", "alice")
    data = summary.to_dict()
    assert data["messageCount"] == 3 and data["startAt"].endswith("Z") and data["keyPoints"]
    with pytest.raises(NotFound):
        services.forgetting.summary("ms_missing")
    with pytest.raises(NotFound):  # another user's summary is not visible
        services.forgetting.summary(record.summary_ref_id, user_id="someone-else")
    with pytest.raises(InvalidInput):
        services.forgetting.summary("  ")
