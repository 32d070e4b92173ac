"""Connectors screen: add Slack against a local fake (real slack-sdk), sync, status; import wizard."""

from __future__ import annotations

import json

import pytest

from tests.ui.helpers import open_window

pytest.importorskip("app.services.connector_service", reason="connectors not merged yet")
fake_slack = pytest.importorskip("tests.connectors.fake_slack")


@pytest.fixture
def slack():
    fake = fake_slack.FakeSlack()
    fake.post("C1", "1700000000.000100", "Kickoff notes are in the wiki", user="U1")
    fake.post("C1", "1700000060.000200", "Thanks, reading them now", user="U2")
    with fake.server:
        yield fake


@pytest.fixture
def screen(qtbot, services):
    window = open_window(qtbot, services)
    return window.show_screen("connectors")


def test_add_test_sync_remove_slack(qtbot, screen, services, slack):
    screen.add(kind="slack", token=slack.token, connector_id="work", interval_minutes=30,
               options={"base_url": slack.server.url + "/api/"})  # fmt: skip
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=10000)
    assert screen.banner.kind == "ok", screen.banner.text()
    assert "xoxb" not in repr(screen.model.rows[0])  # the token is in the secret store only
    screen.table.selectRow(0)
    screen.sync_selected()
    qtbot.waitUntil(lambda: "synced" in screen.banner.text() or screen.banner.kind == "error", timeout=15000)
    assert "2 new" in screen.banner.text(), screen.banner.text()
    qtbot.waitUntil(lambda: screen.model.rows[0].status == "ok", timeout=5000)
    assert services.memory.stats()["messages"] == 2
    screen.test_selected()
    qtbot.waitUntil(lambda: "token works" in screen.banner.text(), timeout=10000)
    screen.confirm = lambda *_: True
    screen.remove_selected()
    qtbot.waitUntil(lambda: screen.model.rowCount() == 0, timeout=5000)
    assert screen.ctx.guard.violations == []


def test_bad_token_is_reported_and_nothing_saved(qtbot, screen, slack):
    screen.add(kind="slack", token="xoxb-wrong", options={"base_url": slack.server.url + "/api/"})
    qtbot.waitUntil(lambda: screen.banner.kind == "error", timeout=15000)
    assert screen.model.rowCount() == 0


def test_import_wizard_dry_run_then_import(qtbot, screen, services, tmp_path):
    if getattr(services, "imports", None) is None:
        pytest.skip("importers not merged yet")
    export = tmp_path / "result.json"
    export.write_text(json.dumps({
        "name": "Book Club", "type": "private_supergroup", "id": 1554871234,
        "messages": [
            {"id": n, "type": "message", "date": f"2023-03-01T10:0{n}:00",
             "date_unixtime": str(1677664800 + n * 60), "from": "Anna", "from_id": "user111",
             "text": f"chapter {n} thoughts", "text_entities": []}
            for n in range(1, 4)
        ],
    }), encoding="utf-8")  # fmt: skip
    wizard = screen.open_import_wizard()
    qtbot.addWidget(wizard)
    wizard.path.setText(str(export))
    wizard.run_preview()
    qtbot.waitUntil(lambda: wizard.preview_value is not None, timeout=10000)
    assert "3 messages" in wizard.preview_view.toPlainText()
    assert services.memory.stats()["messages"] == 0  # dry run stored nothing
    wizard.run_import()
    qtbot.waitUntil(lambda: wizard.report is not None, timeout=10000)
    assert wizard.report.imported == 3
    assert services.memory.stats()["messages"] == 3


def test_import_wizard_preview_lists_unreadable_entries(qtbot, screen, services, tmp_path):
    if getattr(services, "imports", None) is None:
        pytest.skip("importers not merged yet")
    export = tmp_path / "result.json"
    good = {"id": 1, "type": "message", "date_unixtime": "1677664800", "from": "Anna", "text": "fine"}
    export.write_text(json.dumps({"name": "Club", "type": "private_supergroup", "id": 5,
                                  "messages": [good, {"id": "x"}]}), encoding="utf-8")  # fmt: skip
    wizard = screen.open_import_wizard()
    qtbot.addWidget(wizard)
    wizard.path.setText(str(export))
    wizard.run_preview()
    qtbot.waitUntil(lambda: wizard.preview_value is not None, timeout=10000)
    shown = wizard.preview_view.toPlainText()
    assert "1 messages" in shown and "could not be read" in shown
    assert "result.json, line 1 (chat 'Club', message 2): unreadable message" in shown


def kinds(services):
    return services.connectors.kinds()


def fill(dialog, token: str, base_url: str) -> None:
    dialog.kind.setCurrentIndex(dialog.kind.findData("slack"))
    dialog.token.setText(token)
    dialog.option_edits["base_url"].setText(base_url)


def test_refused_token_keeps_the_dialog_open_with_the_token(qtbot, screen, services, slack):
    dialog = screen._show_add_dialog(kinds(services))
    qtbot.addWidget(dialog)
    assert dialog.width() >= 520  # help text and option hints fit, not a 235 px sliver
    fill(dialog, "xoxb-wrong", slack.server.url + "/api/")
    dialog.save_button.click()
    qtbot.waitUntil(lambda: "refused this token" in dialog.status.text(), timeout=10000)
    assert dialog.isVisible() and dialog.token.text() == "xoxb-wrong"  # nothing typed is lost
    assert dialog.save_button.isEnabled()
    assert screen.model.rowCount() == 0 and services.connectors.list_all() == []
    dialog.token.setText(slack.token)  # fix it in place and try again
    dialog.save_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=10000)
    assert screen.banner.text().startswith("Connected slack")


def test_unreachable_platform_says_what_to_do_quickly(qtbot, screen, services):
    import socket
    import time

    with socket.socket() as s:  # a port nothing listens on: connection refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dialog = screen._show_add_dialog(kinds(services))
    qtbot.addWidget(dialog)
    fill(dialog, "xoxb-some-token", f"http://127.0.0.1:{port}/api/")
    started = time.monotonic()
    dialog.save_button.click()
    qtbot.waitUntil(lambda: "could not be reached" in dialog.status.text(), timeout=15000)
    assert time.monotonic() - started < 5  # not the sync's 15 s of patient retries
    assert "internet connection" in dialog.status.text() and "URLError" not in dialog.status.text()
    assert dialog.isVisible() and dialog.token.text() == "xoxb-some-token"


def test_actions_need_a_selected_connector(qtbot, screen, services, slack):
    for b in (screen.test_button, screen.sync_button, screen.remove_button):
        assert not b.isEnabled()
    services.connectors.add("slack", slack.token, connector_id="work",
                            options={"base_url": slack.server.url + "/api/"})  # fmt: skip
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=10000)
    assert not screen.sync_button.isEnabled()  # listed, not selected yet
    screen.table.selectRow(0)
    assert all(b.isEnabled() for b in (screen.test_button, screen.sync_button, screen.remove_button))
    screen.table.clearSelection()
    assert not screen.remove_button.isEnabled()


def telegram_export(tmp_path, count: int):
    export = tmp_path / "result.json"
    export.write_text(json.dumps({
        "name": "Book Club", "type": "private_supergroup", "id": 1554871234,
        "messages": [
            {"id": n, "type": "message", "date_unixtime": str(1677664800 + n * 60), "from": "Anna",
             "from_id": "user111", "text": f"chapter {n} thoughts", "text_entities": []}
            for n in range(1, count + 1)
        ],
    }), encoding="utf-8")  # fmt: skip
    return export


def test_wizard_heading_tells_the_step_and_enter_does_not_close(qtbot, screen, services, tmp_path):
    if getattr(services, "imports", None) is None:
        pytest.skip("importers not merged yet")
    from PySide6.QtCore import Qt

    wizard = screen.open_import_wizard()
    qtbot.addWidget(wizard)
    assert "jsonl" in [wizard.format.itemData(i) for i in range(wizard.format.count())]
    wizard.path.setText(str(telegram_export(tmp_path, 3)))
    qtbot.keyClick(wizard.path, Qt.Key.Key_Return)  # Enter previews; it never closes or stores
    qtbot.waitUntil(lambda: wizard.preview_value is not None, timeout=10000)
    assert wizard.isVisible() and "dry run" in wizard.heading.text().lower()
    assert not any(b.isDefault() for b in (wizard.close_button, wizard.next_button))
    qtbot.keyClick(wizard, Qt.Key.Key_Return)
    assert wizard.isVisible() and services.memory.stats()["messages"] == 0
    headings: list[str] = []
    wizard._progress = lambda *a, _p=wizard._progress: (headings.append(wizard.heading.text()), _p(*a))
    wizard.run_import()
    assert "importing" in wizard.heading.text().lower() and "nothing has been stored" not in (
        wizard.heading.text().lower()
    )
    assert wizard.cancel_button.isVisible() and not wizard.close_button.isVisible()
    qtbot.waitUntil(lambda: wizard.report is not None, timeout=10000)
    assert all("Nothing has been stored" not in h for h in headings)
    assert wizard.heading.text().startswith("Import finished")
    assert services.memory.stats()["messages"] == 3


def test_wizard_cancel_stops_the_import_and_keeps_what_was_stored(qtbot, screen, services, tmp_path):
    if getattr(services, "imports", None) is None:
        pytest.skip("importers not merged yet")
    wizard = screen.open_import_wizard()
    qtbot.addWidget(wizard)
    wizard.path.setText(str(telegram_export(tmp_path, 1200)))
    wizard.run_preview()
    qtbot.waitUntil(lambda: wizard.preview_value is not None, timeout=20000)
    wizard.run_import()
    wizard.cancel_import()  # pressed at once: the import stops after its first stored batch
    qtbot.waitUntil(lambda: wizard.cancelled or wizard.report is not None, timeout=20000)
    assert wizard.cancelled and wizard.heading.text() == "Import cancelled"
    stored = services.memory.stats()["messages"]
    assert stored < 1200
    wizard.run_import()  # again: finishes, skipping what is already there
    qtbot.waitUntil(lambda: wizard.report is not None, timeout=30000)
    assert services.memory.stats()["messages"] == 1200
    assert wizard.report.imported == 1200 - stored


def test_wizard_imports_jsonl(qtbot, screen, services, tmp_path):
    if getattr(services, "imports", None) is None:
        pytest.skip("importers not merged yet")
    lines = [
        json.dumps({"platform": "slack", "message_id": f"m{i}", "channel": "general", "person": "ana",
                    "timestamp": 1700000000000 + i * 1000, "content": f"line {i}"})
        for i in range(4)
    ] + ["{not json"]  # fmt: skip
    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wizard = screen.open_import_wizard()
    qtbot.addWidget(wizard)
    wizard.path.setText(str(path))  # detected by its extension
    wizard.run_preview()
    qtbot.waitUntil(lambda: wizard.preview_value is not None, timeout=10000)
    shown = wizard.preview_view.toPlainText()
    assert "4 messages" in shown and "messages.jsonl, line 5: malformed JSON" in shown
    services.processor.backlog.autostart = False  # hold the vectors back to see the import defer them
    wizard.run_import()
    qtbot.waitUntil(lambda: wizard.report is not None, timeout=10000)
    assert wizard.report.imported == 4 and services.memory.stats()["messages"] == 4
    # Stored through ImportService as the CLI stores: keyword-searchable at once, embedded later.
    assert services.memory.embedding_backlog()["pending"] == 4
    assert [h.content for h in services.memory.search("line 2", limit=1)] == ["line 2"]
