"""Settings, people first: your names, theme, retention per channel, job pause/resume, the model
in use, no test-only embedder on offer, and notices that float and go away."""

from __future__ import annotations

import tomllib

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QScrollArea

from app.core.settings import load_settings
from app.services.paused_jobs import PausedJobs
from app.ui.app import AppHost
from app.ui.hosting import SchedulerHost
from app.ui.screens.settings_privacy import MASKING_NOTE
from app.ui.theme import is_dark
from tests.ui.helpers import open_window, seed, settle


def _settings(qtbot, services):
    window = open_window(qtbot, services)
    return window, window.show_screen("settings")


def test_my_names_are_saved_for_open_loops(qtbot, services):
    window, screen = _settings(qtbot, services)
    screen.you.names.setText(" alex ,Alex Kim,, alex@example.com ")
    screen.you.save_names()
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)
    assert services.insights.me()[:3] == ("alex", "Alex Kim", "alex@example.com")
    screen.you.names.setText(" , ")
    screen.you.save_names()
    assert screen.banner.kind == "error"  # nothing sent, nothing lost
    assert services.insights.me()[0] == "alex"
    settle(qtbot)
    assert window.ctx.guard.violations == []


def test_theme_choice_applies_at_once_and_is_remembered(qtbot, services):
    _window, screen = _settings(qtbot, services)
    screen.you.theme.setCurrentIndex(screen.you.theme.findData("dark"))
    assert is_dark(QApplication.instance())
    assert QSettings().value("ui/theme") == "dark"
    screen.you.theme.setCurrentIndex(screen.you.theme.findData("light"))
    assert not is_dark(QApplication.instance())


def test_model_in_use_is_shown_and_hashing_is_not_a_choice(qtbot, services):
    _window, screen = _settings(qtbot, services)
    qtbot.waitUntil(lambda: screen.model_in_use.text() != "…", timeout=5000)
    assert screen.model_in_use.text().startswith(services.embedder.model_id)
    assert "text-embedding-3-small" not in screen.model_in_use.text()
    offered = [screen.provider.itemData(i) for i in range(screen.provider.count())]
    assert offered[:3] == ["local", "multilingual", "openai"]
    # These tests run on the hashing embedder: shown as what is set, not offered as a choice.
    assert "settings.toml" in screen.provider.itemText(3)
    screen.provider.setCurrentIndex(0)
    assert not screen.embed_model.isEnabled()  # a local model has no name to type
    screen.provider.setCurrentIndex(2)
    assert screen.embed_model.isEnabled()


def test_retention_rules_are_written_and_load_back(qtbot, services):
    seed(services)
    _window, screen = _settings(qtbot, services)
    qtbot.waitUntil(lambda: "slack" in screen.retention.platforms, timeout=5000)
    section = screen.retention
    # "Add a channel" offers the stored conversations, most active first.
    offered = [a.text() for a in section.add_menu.actions() if a.text()]
    assert offered[0].startswith("#general · Slack") and offered[-1] == "Other channel…"
    section.add_menu.actions()[0].trigger()
    assert section.table.item(0, 1).text() == "general"
    row = 0
    row = section.add_rule({"channel": "#random", "keep_forever": False})
    section.table.item(row, 3).setText("0,6")
    section.save()
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)
    path = services.settings.layout.settings_file
    rules = load_settings(services.settings.data_dir).forgetting.retention
    assert [(r.channel, r.platform, r.keep_forever) for r in rules] == [
        ("general", "slack", True),
        ("random", None, False),
    ]
    assert rules[1].short_to_mid_threshold == 0.6
    section.table.item(row, 4).setText("2")
    section.save()
    assert screen.banner.kind == "error" and "0 to 1" in screen.banner.text()
    assert len(tomllib.loads(path.read_text(encoding="utf-8"))["forgetting"]["retention"]) == 2
    section.table.selectRow(1)
    section.remove_selected()
    section.table.selectRow(0)
    section.remove_selected()
    section.save()
    settle(qtbot)
    assert load_settings(services.settings.data_dir).forgetting.retention == []


def test_jobs_have_plain_names_and_pause_survives_a_restart(qtbot, services):
    window, screen = _settings(qtbot, services)
    host = AppHost(window)
    host.scheduler = SchedulerHost(services)
    host.scheduler.start()
    window.ctx.hosting = host
    try:
        screen.reload()
        qtbot.waitUntil(lambda: screen.schedules.table.rowCount() > 0, timeout=5000)
        labels = [screen.schedules.table.item(r, 0).text() for r in range(screen.schedules.table.rowCount())]
        assert "Find insights in new messages" in labels
        assert not any(label.endswith("…") or "." in label.split()[0] for label in labels)
        assert "heartbeat" not in " ".join(labels).lower()
        row = labels.index("Find insights in new messages")
        screen.schedules.table.selectRow(row)
        assert screen.schedules.toggle_button.text() == "Pause"
        screen.schedules.toggle_button.click()
        qtbot.waitUntil(lambda: screen.schedules.table.item(row, 3).text() == "Paused", timeout=5000)
        assert host.scheduler.scheduler.get_job("insights.generate").next_run_time is None
        assert PausedJobs(services.settings.data_dir).load() == {"insights.generate"}
        # Its interval is a setting: changed here, written for the next start, still paused.
        assert screen.schedules.every.isEnabled() and screen.schedules.every.value() == 60
        screen.schedules.every.setValue(15)
        screen.schedules.every_button.click()
        qtbot.waitUntil(lambda: screen.schedules.table.item(row, 1).text() == "every 15 min", timeout=5000)
        assert load_settings(services.settings.data_dir).insights.schedule_minutes == 15
        assert host.scheduler.scheduler.get_job("insights.generate").next_run_time is None
        repair = labels.index("Check and repair the search index")
        screen.schedules.table.selectRow(repair)
        assert not screen.schedules.every.isEnabled()  # index upkeep keeps its own schedule
    finally:
        host.scheduler.stop()
    again = SchedulerHost(services)  # the next start of the app
    try:
        again.start()
        assert again.scheduler.get_job("insights.generate").next_run_time is None
        again.set_paused("insights.generate", False)
        assert again.scheduler.get_job("insights.generate").next_run_time is not None
        assert PausedJobs(services.settings.data_dir).load() == set()
    finally:
        again.stop()
    settle(qtbot)
    assert window.ctx.guard.violations == []


def test_notices_float_over_the_page_and_go_away(qtbot, services):
    _window, screen = _settings(qtbot, services)
    scroll_top = screen.findChild(QScrollArea)
    before = scroll_top.geometry()
    screen.banner.show_message("Saved.", "ok")
    assert screen.banner.isVisible()
    assert scroll_top.geometry() == before  # nothing pushed down
    assert screen.floating.timer.isActive()
    screen.floating.timer.timeout.emit()  # the timeout, without waiting six seconds
    assert not screen.banner.isVisible()
    screen.banner.show_message("Broken.", "error")
    assert screen.floating.timer.interval() > 6_000  # errors stay long enough to read
    qtbot.mouseClick(screen.banner, Qt.MouseButton.LeftButton)
    assert not screen.banner.isVisible()


def test_privacy_choices_are_written_without_editing_the_file(qtbot, services):
    _window, screen = _settings(qtbot, services)
    section = screen.masking
    section.classes["phones"].setChecked(False)
    section.allow_reveal.setChecked(True)
    section.token_cap.setValue(50_000)
    section.save()
    qtbot.waitUntil(lambda: screen.banner.kind == "ok", timeout=5000)
    settings = load_settings(services.settings.data_dir)
    assert "phones" not in settings.privacy.redact and "secrets" in settings.privacy.redact
    assert settings.privacy.allow_reveal is True
    assert settings.llm.daily_token_cap == 50_000
    assert "settings.toml" not in MASKING_NOTE  # the note no longer sends people to the file
