"""Desktop UI for issue 13: the waiting-forgetting notice (preview / run / not now), export and backup."""

from __future__ import annotations

import json

import pytest

from app.core.clock import DAY_MS
from app.core.settings import EmbeddingSettings, ForgettingSettings, Settings
from tests.conftest import NOW_MS, make_message
from tests.ui.helpers import open_window, settle


@pytest.fixture
def settings(data_dir):
    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(provider="hashing"),
        forgetting=ForgettingSettings(confirm_above_records=3),
    )


@pytest.fixture
def window(qtbot, services):
    old = [
        make_message(i, message_id=f"old-{i}", channel="random", person="bob",
                     content=f"ok sounds good {i}", timestamp=NOW_MS - 40 * DAY_MS + i * 60_000)
        for i in range(12)
    ]  # fmt: skip
    services.memory.ingest(old)
    [report] = services.forgetting.run_scheduled()
    assert report.status == "awaiting_confirmation"
    return open_window(qtbot, services)


def test_waiting_plan_shows_a_notice_and_not_now_hides_it(qtbot, window, services):
    screen = window.show_screen("memory")
    qtbot.waitUntil(lambda: screen.pending.isVisible(), timeout=10000)
    assert "would archive 12 messages" in screen.pending.text.text()
    screen.pending.preview_button.click()
    qtbot.waitUntil(lambda: "Next run would" in screen.plan_view.toPlainText(), timeout=10000)
    screen.pending.later_button.click()
    qtbot.waitUntil(lambda: not screen.pending.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: screen.banner.text().startswith("Not now"), timeout=10000)
    assert services.forgetting.status()["pendingPlan"] is None
    assert services.memory.stats()["archived"] == 0
    assert screen.ctx.guard.violations == []


def test_run_from_the_notice_applies_the_plan(qtbot, window, services):
    screen = window.show_screen("memory")
    qtbot.waitUntil(lambda: screen.pending.isVisible(), timeout=10000)
    screen.pending.run_button.click()
    qtbot.waitUntil(lambda: screen.banner.text().startswith("Forgetting run"), timeout=15000)
    qtbot.waitUntil(lambda: not screen.pending.isVisible(), timeout=10000)
    assert services.memory.stats()["archived"] == 12


def test_settings_export_and_backup_run_in_the_background(qtbot, window, tmp_path):
    screen = window.show_screen("settings")
    screen.backup.start("export", tmp_path / "export")
    qtbot.waitUntil(lambda: screen.backup.state.text().startswith("Export written"), timeout=15000)
    lines = (tmp_path / "export" / "messages.jsonl").read_text().splitlines()
    assert len(lines) == 12 and json.loads(lines[0])["content"] == "ok sounds good 0"
    screen.backup.start("backup", tmp_path / "backup")
    qtbot.waitUntil(lambda: screen.backup.state.text().startswith("Backup written"), timeout=15000)
    assert (tmp_path / "backup" / "backup.json").is_file()
    settle(qtbot)
    assert screen.ctx.guard.violations == []
