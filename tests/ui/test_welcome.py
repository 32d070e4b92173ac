"""First run: an empty data dir opens on the welcome page; the demo loads only when asked."""

from __future__ import annotations

from app.ui.app import AppHost, is_first_run
from app.ui.screens.welcome import EXPORTS
from tests.ui.helpers import open_window, seed, settle


def test_empty_data_dir_shows_welcome_and_loads_nothing_by_itself(qtbot, services):
    assert is_first_run(services)
    window = open_window(qtbot, services)
    host = AppHost(window)
    host._welcome(is_first_run(services))
    assert window.current_key() == "welcome"
    settle(qtbot)
    assert services.memory.stats()["messages"] == 0  # the demo is offered, never slipped in
    welcome = window.welcome
    names = [name for name, _where in EXPORTS]
    assert names == ["Slack", "Discord", "Telegram", "WhatsApp", "Email", "JSONL"]
    assert all(where for _name, where in EXPORTS)
    assert len(welcome.example_buttons) >= 3


def test_load_demo_fills_memory_and_runs_an_example_search(qtbot, services):
    window = open_window(qtbot, services)
    welcome = window.show_welcome()
    welcome.demo_button.click()
    search = window.screens["search"]
    qtbot.waitUntil(lambda: window.current_key() == "search", timeout=10_000)
    qtbot.waitUntil(lambda: search.model.rowCount() > 0, timeout=10_000)
    assert search.query_edit.text() == "when is the launch?"
    assert services.memory.stats()["messages"] == 24
    assert not is_first_run(services)
    settle(qtbot)
    assert window.ctx.guard.violations == []


def test_welcome_leads_to_import_documents_and_sidebar(qtbot, services, tmp_path):
    window = open_window(qtbot, services)
    welcome = window.show_welcome()
    note = tmp_path / "note.md"
    note.write_text("# Packing list\n\nPassport, charger, umbrella.\n", encoding="utf-8")
    welcome.add_documents([note])
    assert window.current_key() == "knowledge_base"
    qtbot.waitUntil(lambda: services.knowledge.count() == 1, timeout=10_000)
    window.show_welcome()
    window.sidebar.item(0).setSelected(True)
    window.show_screen("search")  # any sidebar page leaves the welcome page
    assert window.current_key() == "search"
    settle(qtbot)


def test_returning_user_is_not_shown_the_welcome(qtbot, services):
    seed(services)
    assert not is_first_run(services)
    window = open_window(qtbot, services)
    AppHost(window)._welcome(is_first_run(services))
    assert window.current_key() == "search"
