"""Helpers for UI tests: seed a conversation, build a window over real services, wait for ops."""

from __future__ import annotations

from app.ui.app import build_window
from app.ui.main_window import MainWindow
from app.ui.ops import wait_for_pool
from tests.conftest import NOW_MS, make_message

CONVERSATION = [
    ("slack", "general", "anna", "Morning all, the Q3 budget draft is in the shared folder"),
    ("slack", "general", "ben", "Thanks, I will review the budget numbers today"),
    ("slack", "general", "anna", "Please check the travel line, it looks high"),
    ("slack", "general", "carl", "Lunch at noon?"),
    ("discord", "dev", "dana", "The deploy pipeline is blocked on the budget approval"),
    ("discord", "dev", "erik", "Release notes drafted for version 2.1"),
    ("slack", "random", "ben", "Anyone seen my charger"),
]


def seed(services, rows=CONVERSATION) -> None:
    messages = [
        make_message(
            i,
            platform=p,
            channel=c,
            person=who,
            content=text,
            message_id=f"{p}-{i}",
            timestamp=NOW_MS - (100 - i) * 60_000,
        )
        for i, (p, c, who, text) in enumerate(rows)
    ]
    result = services.memory.ingest(messages)
    assert result.imported == len(rows), result


def open_window(qtbot, services, *, debug: bool = True) -> MainWindow:
    window = build_window(services, debug=debug)
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    qtbot.waitExposed(window)
    return window


def settle(qtbot, ms: int = 30) -> None:
    """Let queued background ops finish and deliver their callbacks."""
    wait_for_pool()
    qtbot.wait(ms)
