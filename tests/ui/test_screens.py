"""Every screen on real services: loads without GUI-thread service calls; screenshots for review."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTableView

from app.ui.main_window import SCREENS
from tests.ui.helpers import open_window, seed, settle


def test_screenshot_every_screen(qtbot, services, tmp_path):
    seed(services)
    # Fill the feature screens too when their services are part of this build.
    if getattr(services, "insights", None) is not None:
        services.insights.generate()
    if getattr(services, "knowledge", None) is not None:
        services.knowledge.add_bytes(b"# Travel policy\n\nBook flights two weeks ahead.\n", "policy.md")
    window = open_window(qtbot, services)
    shots = tmp_path / "screenshots"
    shots.mkdir()
    window.focus_search("budget")
    qtbot.waitUntil(lambda: window.screens["search"].model.rowCount() > 0, timeout=5000)
    window.screens["search"].open_current()
    for key, _label, _factory in SCREENS:
        screen = window.show_screen(key)
        settle(qtbot, 150)
        if key in ("insights", "knowledge_base") and screen.findChild(QTableView) is not None:
            table = screen.findChild(QTableView)
            if table.model().rowCount():
                table.selectRow(0)
                settle(qtbot, 150)
        path = shots / f"{key}.png"
        assert window.grab().save(str(path))
        assert path.stat().st_size > 5_000
    assert window.ctx.guard.violations == []


def test_settings_saves_choices_to_settings_file(qtbot, services):
    window = open_window(qtbot, services)
    screen = window.show_screen("settings")
    screen.provider.setCurrentIndex(screen.provider.findData("local"))
    screen.llm_base_url.setText("http://127.0.0.1:9/v1")
    screen.save_models()
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)
    text = services.settings.layout.settings_file.read_text(encoding="utf-8")
    assert 'provider = "local"' in text and 'base_url = "http://127.0.0.1:9/v1"' in text
    token = services.settings.layout.token_file
    token.write_text("secret-token\n", encoding="utf-8")
    screen.integrations.copy_token.click()
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == "secret-token", timeout=5000)
    token.unlink()  # first use creates the token, as the server would
    screen.integrations.copy_token.click()
    qtbot.waitUntil(
        lambda: token.exists() and QGuiApplication.clipboard().text() != "secret-token", timeout=5000
    )
    assert QGuiApplication.clipboard().text() == token.read_text(encoding="utf-8").strip()


def test_mcp_install_writes_client_config(qtbot, services, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the client config lands in a temp home
    cursor = tmp_path / "home" / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}), encoding="utf-8")
    window = open_window(qtbot, services)
    screen = window.show_screen("settings")
    screen.integrations.install_buttons["cursor"].click()
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)
    config = json.loads(cursor.read_text(encoding="utf-8"))
    assert set(config["mcpServers"]) == {"other", "strata"}
    assert str(services.settings.data_dir.resolve()) in config["mcpServers"]["strata"]["args"]
    screen.integrations.copy_snippet.click()
    assert '"strata"' in QGuiApplication.clipboard().text()
