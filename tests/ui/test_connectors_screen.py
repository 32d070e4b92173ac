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
