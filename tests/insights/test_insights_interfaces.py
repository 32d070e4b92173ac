"""REST routes over real HTTP on 127.0.0.1, MCP tools through the real MCP client, the scheduled job."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import uvicorn
from apscheduler.events import EVENT_JOB_EXECUTED
from apscheduler.schedulers.background import BackgroundScheduler
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from insights_eval_loader import load_harness
from mcp import Client
from mcp.server.mcpserver import MCPServer

from app.api.routes import insights as insight_routes
from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import InvalidInput, NotFound, StrataError
from app.core.settings import InsightSettings, Settings
from app.mcp.tools import insights as insight_tools
from app.services.insights_jobs import JOB_ID, register_insights_job, run_generation

harness = load_harness()
START = 1_774_915_200_000  # 2026-03-31T00:00:00Z


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    settings = settings.model_copy(update={"insights": InsightSettings(identities=["alex"])})
    services = build_services(settings, clock=FixedClock(START), embedder=HashingEmbedder())
    services.memory.ingest(
        [
            RawMessage(platform=m.platform, message_id=m.message_id, channel=m.channel, person=m.person,
                       timestamp=m.timestamp, content=m.content)
            for c in harness.load() for m in c.messages
        ]
    )  # fmt: skip
    yield services
    services.close()


@pytest.fixture
def base_url(svc: Services) -> Iterator[str]:
    app = FastAPI()
    app.state.services = svc
    app.include_router(insight_routes.router, prefix="/api")

    # Stand-in for app/api/errors.py (the API issue maps the whole tree); enough for these routes.
    @app.exception_handler(StrataError)
    def _strata(_: Request, exc: StrataError) -> JSONResponse:
        status = 404 if isinstance(exc, NotFound) else 400 if isinstance(exc, InvalidInput) else 409
        return JSONResponse({"error": exc.code, "message": exc.message}, status_code=status)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/api"
    server.should_exit = True
    thread.join(5)


def test_rest_routes(svc: Services, base_url: str) -> None:
    svc.insights.generate()
    with httpx.Client(base_url=base_url, timeout=10) as http:
        listed = http.get("/insights", params={"kind": "action_item", "sort": "due", "limit": 5}).json()
        assert listed["count"] == 5 and all(i["kind"] == "action_item" for i in listed["items"])
        dues = [i["dueAt"] for i in listed["items"]]
        assert dues == sorted(dues)
        by_label = http.get("/insights", params={"label": "incident"}).json()["items"]
        assert by_label and {i["taskLabel"] for i in by_label} == {"incident"}
        # The critical incidents of the set were resolved in the chat: done, so out of the default list.
        assert not http.get("/insights", params={"importance": "critical"}).json()["items"]
        critical = http.get("/insights", params={"importance": "critical", "lifecycle": "all"}).json()[
            "items"
        ]
        assert critical and {i["lifecycle"] for i in critical} == {"done"}
        assert http.get("/insights", params={"state": "dormant"}).json()["count"] > 0

        first = listed["items"][0]["id"]
        one = http.get(f"/insights/{first}").json()
        assert one["evidence"] and one["insightWeights"]["accessCount7d"] == 1 and one["state"] == "active"
        fav = http.post(f"/insights/{first}/favorite").json()
        assert fav["favorite"] is True
        assert http.post(f"/insights/{first}/favorite", json={"favorite": False}).json()["favorite"] is False
        trend = http.get(f"/insights/{first}/trend", params={"days": 7}).json()
        assert trend["trend"] == "rising" and len(trend["daily"]) == 7 and trend["accessCount7d"] == 2

        brief = http.get("/insights/brief").json()
        assert brief["myActions"] and brief["questionsForMe"]
        found = http.get("/insights", params={"q": "tenacity retry library"}).json()["items"]
        assert found[0]["kind"] == "decision"

        # Lifecycle: done leaves the default list and the brief; snooze needs a time; reopen brings it back.
        mine = brief["myActions"][0]["id"]
        done = http.post(f"/insights/{mine}/lifecycle", json={"state": "done"}).json()
        assert done["lifecycle"] == "done" and done["status"] == "open"  # the chat never said so
        full = http.get(f"/insights/{mine}").json()
        assert (
            full["timeline"][-1]["event"] == "you set it done" and full["timeline"][-1]["messageId"] is None
        )
        assert mine not in {i["id"] for i in http.get("/insights", params={"limit": 500}).json()["items"]}
        assert mine not in {i["id"] for i in http.get("/insights/brief").json()["myActions"]}
        assert mine in {i["id"] for i in http.get("/insights", params={"lifecycle": "done"}).json()["items"]}
        assert http.post(f"/insights/{mine}/lifecycle", json={"state": "snoozed"}).status_code == 400
        snoozed = http.post(
            f"/insights/{mine}/lifecycle", json={"state": "snoozed", "until": "2026-04-02T09:00:00Z"}
        ).json()
        assert snoozed["lifecycle"] == "snoozed" and snoozed["snoozedUntil"].startswith("2026-04-02T09:00")
        assert http.post(f"/insights/{mine}/lifecycle", json={"state": "gone"}).status_code == 422
        assert http.post(f"/insights/{mine}/lifecycle", json={"state": "open"}).json()["lifecycle"] == "open"

        assert http.get("/insights/me").json() == {"names": ["alex"]}
        assert http.put("/insights/me", json={"names": ["Alex Kim", "alex"]}).json() == {
            "names": ["Alex Kim", "alex"]
        }
        assert http.put("/insights/me", json={"names": []}).status_code == 422

        assert http.get("/insights/not-an-id").status_code == 404
        assert http.get("/insights", params={"sort": "loudest"}).status_code == 400
        assert http.get("/insights", params={"limit": 0}).status_code == 422


def _call(server: MCPServer, name: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, args)

    return asyncio.run(go())


def test_mcp_tools(svc: Services) -> None:
    svc.insights.generate()
    server = MCPServer("test")
    insight_tools.register(server, svc)

    async def names() -> set[str]:
        async with Client(server) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert {"list_insights", "get_insight", "open_loops", "set_insight_state"} <= asyncio.run(names())
    page = _call(server, "list_insights", {"kind": "decision", "limit": 3}).structured_content
    assert len(page["items"]) == 3 and page["next_offset"] == 3
    one = _call(server, "get_insight", {"id": page["items"][0]["id"]}).structured_content
    assert one["evidence"] and one["timeline"]
    loops = _call(server, "open_loops", {}).structured_content
    assert loops["identities"] == ["alex"] and loops["myActions"]
    mine = loops["myActions"][0]["id"]
    snoozed = _call(server, "set_insight_state", {"id": mine, "state": "snoozed", "until": "2026-04-03"})
    assert snoozed.structured_content["lifecycle"] == "snoozed"
    again = _call(server, "open_loops", {}).structured_content
    assert mine not in {i["id"] for i in again["myActions"]}
    hidden = _call(server, "list_insights", {"lifecycle": "snoozed"}).structured_content
    assert [i["id"] for i in hidden["items"]] == [mine]
    no_time = _call(server, "set_insight_state", {"id": mine, "state": "snoozed"})
    assert no_time.is_error and "invalid_input" in no_time.content[0].text
    bad = _call(server, "get_insight", {"id": "nope"})
    assert bad.is_error and "not_found" in bad.content[0].text


def test_scheduled_job_generates(svc: Services) -> None:
    scheduler = BackgroundScheduler(timezone="UTC")
    scheduler.start(paused=True)
    try:
        job = register_insights_job(scheduler, svc.insights, minutes=30)
        assert job.id == JOB_ID and job.max_instances == 1 and job.coalesce
        job = register_insights_job(scheduler, svc.insights, minutes=15)  # replaces, never duplicates
        assert len(scheduler.get_jobs()) == 1
        done = threading.Event()
        results: list[Any] = []

        def on_run(event: Any) -> None:
            results.append(event.retval)
            done.set()

        scheduler.add_listener(on_run, EVENT_JOB_EXECUTED)
        job.modify(next_run_time=datetime.now(UTC))
        scheduler.resume()
        assert done.wait(60)
        assert results[0]["groupsProcessed"] == 14
    finally:
        scheduler.shutdown(wait=True)
    assert run_generation(svc.insights)["groupsProcessed"] == 0  # incremental: nothing new since
    with pytest.raises(InvalidInput):
        register_insights_job(scheduler, svc.insights, minutes=0)
