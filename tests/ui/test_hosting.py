"""The app hosts the REST/MCP server: Settings turns it on (real uvicorn on 127.0.0.1) and off."""

from __future__ import annotations

import socket

import httpx
import pytest

from app.ui.app import AppHost
from app.ui.hosting import ApiServerHost, SchedulerHost
from tests.ui.helpers import open_window

pytest.importorskip("app.api.app", reason="REST API not merged yet")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_settings_toggle_starts_and_stops_the_server(qtbot, services):
    window = open_window(qtbot, services)
    host = AppHost(window)
    host.services = services
    host.api = ApiServerHost(services)
    window.ctx.hosting = host
    screen = window.show_screen("settings")
    port = _free_port()
    screen.api_enabled.setChecked(True)
    screen.api_port.setValue(port)
    screen.apply_server()
    qtbot.waitUntil(lambda: screen.api_status.text().startswith("running"), timeout=30000)
    health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5)
    assert health.status_code == 200
    screen.api_enabled.setChecked(False)
    screen.apply_server()
    qtbot.waitUntil(lambda: screen.api_status.text() == "stopped", timeout=15000)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
    text = services.settings.layout.settings_file.read_text(encoding="utf-8")
    assert "enabled_in_app = false" in text and f"port = {port}" in text
    assert window.ctx.guard.violations == []


def test_app_scheduler_runs_the_shared_jobs(services):
    host = SchedulerHost(services)
    try:
        ids = host.start()
        assert any("forget" in i for i in ids)
        # A running scheduler lists jobs by next run time (the index repair runs soon after start).
        assert sorted(j[0] for j in host.jobs()) == sorted(ids)
    finally:
        host.stop()
    assert host.jobs() == []
