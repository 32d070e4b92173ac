"""No changes behind the user's back: writes by another service instance (as another process or a
scheduled job would make them) refresh the open views and show a notice with a way to review."""

from __future__ import annotations

import pytest

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from tests.ui.helpers import open_window, seed

pytest.importorskip("app.services.insights_service", reason="insights not merged yet")

DISCUSSION = [
    ("slack", "eng", "anna", "We decided to ship the release on Monday"),
    ("slack", "eng", "ben", "Ben will fix the login bug by Friday"),
    ("slack", "eng", "carl", "Blocked: the staging database is down"),
]


@pytest.fixture
def other(settings, clock):
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield svc
    svc.close()


def test_insights_found_elsewhere_refresh_the_list_and_notify(qtbot, services, other):
    seed(services, DISCUSSION)
    window = open_window(qtbot, services)
    screen = window.show_screen("insights")
    watcher = window.ctx.notices
    qtbot.waitUntil(lambda: watcher.marker is not None, timeout=10000)
    assert screen.model.rowCount() == 0

    found = len(other.insights.generate().ids)  # the scheduled job of another process
    assert found >= 2
    watcher.poll_now()
    qtbot.waitUntil(lambda: screen.model.rowCount() == found, timeout=10000)  # the view refreshed
    bar = window.notice_bar
    qtbot.waitUntil(lambda: bar.isVisible(), timeout=5000)
    assert f"{found} new insights" in bar.text.text() and not bar.undo_button.isVisible()
    window.show_screen("memory")
    bar.review_button.click()
    assert window.current_key() == "insights" and not bar.isVisible()
    assert window.ctx.guard.violations == []


def test_own_changes_make_no_notice(qtbot, services):
    seed(services, DISCUSSION)
    window = open_window(qtbot, services)
    screen = window.show_screen("insights")
    watcher = window.ctx.notices
    qtbot.waitUntil(lambda: watcher.marker is not None, timeout=10000)
    screen.generate()  # the user's own run: its banner says what it found
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10000)
    watcher.poll_now()
    qtbot.waitUntil(lambda: not watcher._running, timeout=5000)
    qtbot.wait(100)
    assert not window.notice_bar.isVisible()


def test_sync_by_another_process_refreshes_connectors_and_notifies(qtbot, services, other):
    fake_slack = pytest.importorskip("tests.connectors.fake_slack")
    slack = fake_slack.FakeSlack()
    slack.post("C1", "1700000000.000100", "Kickoff notes are in the wiki", user="U1")
    slack.post("C1", "1700000060.000200", "Thanks, reading them now", user="U2")
    with slack.server:
        window = open_window(qtbot, services)
        screen = window.show_screen("connectors")
        services.connectors.add("slack", slack.token, connector_id="work",
                                options={"base_url": slack.server.url + "/api/"})  # fmt: skip
        qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=10000)
        watcher = window.ctx.notices
        watcher.poll_now()
        qtbot.waitUntil(lambda: not watcher._running and "work" in watcher.syncs, timeout=10000)

        report = other.connectors.sync("work")  # the scheduler of another process
        assert report.imported == 2
        watcher.poll_now()
        qtbot.waitUntil(lambda: screen.model.rows[0].messages_total == 2, timeout=10000)
        bar = window.notice_bar
        qtbot.waitUntil(lambda: bar.isVisible(), timeout=5000)
        assert "“work” synced: 2 new messages" in bar.text.text()
        bar.dismiss_button.click()
        assert not bar.isVisible()
