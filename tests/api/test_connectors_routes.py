"""Connector REST routes over real HTTP on 127.0.0.1 (uvicorn), backed by a fake Slack API."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.api.routes import connectors as connector_routes
from app.core.errors import NotFound, StrataError
from app.services.connector_service import ConnectorService
from connectors.retry import RetryPolicy
from connectors.secrets import FileSecretStore
from tests.connectors.fake_slack import FakeSlack


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def api(services, clock):
    services.connectors = ConnectorService(
        services.db,
        services.memory,
        FileSecretStore(services.layout.secrets_file),
        clock,
        user_id=services.settings.user_id,
        retry=RetryPolicy(max_attempts=1),
    )
    app = FastAPI()
    app.state.services = services

    # Stand-in for app/api/errors.py (branch `api`): errors become statuses by type at the edge.
    @app.exception_handler(StrataError)
    def _errors(_: Request, exc: StrataError) -> JSONResponse:
        return JSONResponse(
            {"error": exc.code, "message": exc.message}, status_code=404 if isinstance(exc, NotFound) else 500
        )

    app.include_router(connector_routes.router, prefix="/api")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}/api", timeout=30) as client:
        yield client, services.connectors
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def slack():
    fake = FakeSlack()
    with fake.server:
        yield fake


def test_list_sync_and_status(api, slack):
    client, connectors = api
    assert client.get("/connectors").json()["connectors"] == []
    connectors.add("slack", slack.token, options={"base_url": slack.server.url + "/api/"})
    slack.post("C1", "1700000001.000100", "standup moved to 10:30")

    listed = client.get("/connectors").json()
    assert [c["id"] for c in listed["connectors"]] == ["slack"]
    assert "base_url" not in listed["connectors"][0]["options"]
    assert {k["kind"] for k in listed["kinds"]} == {"slack", "discord", "telegram"}

    report = client.post("/connectors/slack/sync").json()
    assert report["ok"] is True and report["imported"] == 1 and report["connector"] == "slack"

    status = client.get("/connectors/slack/status").json()
    assert status["status"] == "ok" and status["messages_total"] == 1 and status["last_sync_at"]
    assert slack.token not in client.get("/connectors").text


def test_background_sync_and_errors(api, slack):
    client, connectors = api
    connectors.add("slack", slack.token, options={"base_url": slack.server.url + "/api/"})
    slack.post("C1", "1700000001.000100", "hello")
    started = client.post("/connectors/slack/sync", json={"background": True})
    assert started.status_code == 202
    for _ in range(200):
        if client.get("/connectors/slack/status").json()["status"] == "ok":
            break
        time.sleep(0.05)
    assert client.get("/connectors/slack/status").json()["messages_total"] == 1

    slack.token = "xoxb-revoked"
    failed = client.post("/connectors/slack/sync", json={"limit": 5}).json()
    assert failed["ok"] is False and failed["error_code"] == "connector_auth_failed"
    assert client.get("/connectors/nope/status").status_code == 404
    assert client.post("/connectors/nope/sync").status_code == 404
    assert client.post("/connectors/slack/sync", json={"limit": 0}).status_code == 422
