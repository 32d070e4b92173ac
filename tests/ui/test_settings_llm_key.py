"""Settings → LLM API key: saved to the secret store, never to settings.toml, never shown back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from app.services.llm import KEY_NAME
from tests.ui.helpers import open_window, settle

KEY = "sk-ui-0123456789abcdefSECRET"


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STRATA_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_key_is_stored_in_the_secret_store_and_not_the_settings_file(qtbot, services):
    window = open_window(qtbot, services)
    screen = window.show_screen("settings")
    settle(qtbot, 200)
    row = screen.llm_key
    assert row.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert "No key stored" in row.state.text() and not row.clear_button.isEnabled()

    screen.llm_enabled.setChecked(True)
    screen.llm_model.setText("gpt-test")
    qtbot.keyClicks(row.key_edit, KEY)
    qtbot.keyClick(row.key_edit, Qt.Key.Key_Return)  # Enter saves, like the Save button
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)

    secrets = services.connectors.secrets  # the one store the app opened
    assert secrets.get(KEY_NAME) == KEY
    settings_text = services.settings.layout.settings_file.read_text(encoding="utf-8")
    assert 'model = "gpt-test"' in settings_text and "enabled = true" in settings_text
    assert KEY not in settings_text and "api_key" not in settings_text
    assert row.key_edit.text() == "" and "key stored" in row.key_edit.placeholderText()
    assert "Key stored in" in row.state.text() and row.clear_button.isEnabled()
    assert KEY not in screen.banner.text()

    row.clear_button.click()
    qtbot.waitUntil(lambda: secrets.get(KEY_NAME) is None, timeout=5000)
    qtbot.waitUntil(lambda: "No key stored" in row.state.text(), timeout=5000)
    assert not row.clear_button.isEnabled()
    assert window.ctx.guard.violations == []


def test_a_malformed_key_is_refused_and_nothing_is_saved(qtbot, services):
    window = open_window(qtbot, services)
    screen = window.show_screen("settings")
    screen.llm_model.setText("gpt-other")
    screen.llm_key.key_edit.setText("two words")
    screen.save_models()
    qtbot.waitUntil(lambda: screen.banner.kind == "error", timeout=5000)
    assert "does not look like an API key" in screen.banner.text() and "two words" not in screen.banner.text()
    assert services.connectors.secrets.get(KEY_NAME) is None
    assert not services.settings.layout.settings_file.exists()
    assert screen.llm_key.key_edit.text() == "two words"  # kept, so it can be corrected


def test_an_environment_key_is_reported_as_overriding(qtbot, services, monkeypatch):
    monkeypatch.setenv("STRATA_LLM_API_KEY", "sk-env")
    window = open_window(qtbot, services)
    screen = window.show_screen("settings")
    qtbot.waitUntil(lambda: "STRATA_LLM_API_KEY is set" in screen.llm_key.state.text(), timeout=5000)
    assert "sk-env" not in screen.llm_key.state.text()
