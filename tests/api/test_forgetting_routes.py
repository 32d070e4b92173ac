"""Forgetting routes over real HTTP on 127.0.0.1 (uvicorn in a thread)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from app.api.routes import forgetting
from tests.forgetting.conftest import seed_group


@pytest.fixture
def base_url(services) -> Iterator[str]:
    app = FastAPI()
    app.state.services = services
    app.include_router(forgetting.router, prefix="/api")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/api"
    server.should_exit = True
    thread.join(timeout=10)


def test_preview_run_status(services, base_url: str) -> None:
    seed_group(services, day=10)
    seed_group(services, day=11, channel="ops", n=4)
    with httpx.Client(base_url=base_url, timeout=60) as client:
        preview = client.post("/forgetting/preview", json={"maxGroups": 1})
        assert preview.status_code == 200, preview.text
        data = preview.json()
        assert data["truncated"] is True and len(data["groups"]) == 1
        assert data["groups"][0]["decisions"][0]["action"] == "archive"
        assert data["tiers"][0]["evaluated"] == 7

        dry = client.post("/forgetting/run", json={"dryRun": True}).json()
        assert dry["status"] == "dry_run" and dry["totals"]["archived"] == 7

        run = client.post("/forgetting/run", json={}).json()
        assert run["status"] == "completed" and run["totals"]["summarized"] == 2 and run["trigger"] == "api"

        status = client.get("/forgetting/status").json()
        assert status["lastRun"]["runId"] == run["runId"]
        # Over-age records still waiting are those in groups under the minimum size.
        assert set(status["pendingCandidates"]) == {"short", "mid"}
        assert status["pendingCandidates"]["short"] == run["totals"]["skipped"]
        assert status["summaries"] == 2


def test_summary_of_archived_messages_by_id(services, base_url: str) -> None:
    ids = seed_group(
        services, day=10, texts=["venue booked in Lisbon", "flights for the offsite", "hotel ok"]
    )
    services.forgetting.run()
    summary_id = services.memory.get(ids[0]).summary_ref_id
    assert summary_id
    with httpx.Client(base_url=base_url, timeout=30) as client:
        data = client.get(f"/summaries/{summary_id}").json()
    assert data["summaryId"] == summary_id and data["messageCount"] == 3
    assert sorted(data["sourceRecordIds"]) == sorted(ids) and data["summaryText"]


def test_bad_body_is_rejected_clearly(services, base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        bad = client.post("/forgetting/preview", json={"maxGroups": 0})
        assert bad.status_code == 422
        assert "maxGroups" in bad.text
        assert (
            client.post(
                "/forgetting/run", content=b"{not json", headers={"content-type": "application/json"}
            ).status_code
            == 422
        )
