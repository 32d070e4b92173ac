"""Core change events reach the window's bus on the GUI thread, mapped to view kinds."""

from __future__ import annotations

import threading

from app.core.events import Change, EventBus
from app.ui.events import ALL_KINDS, DOCUMENTS, MESSAGES, UiEvents, bridge_core_events, kinds_for_entity
from app.ui.ops import on_gui_thread


def test_entities_map_to_kinds_and_unknown_refreshes_all():
    assert kinds_for_entity("message") == {MESSAGES}
    assert kinds_for_entity("document") == {DOCUMENTS}
    assert kinds_for_entity("brand-new-thing") == ALL_KINDS


def test_change_published_on_worker_thread_arrives_on_gui_thread(qtbot):
    bus = EventBus()
    events = UiEvents()
    got = []
    events.changed.connect(lambda changes: got.append((changes.kinds, on_gui_thread())))
    unsubscribe = bridge_core_events(bus, events)
    worker = threading.Thread(target=lambda: bus.publish(Change("document", "created", ("d1",))))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(got), timeout=3000)
    assert got == [(frozenset({DOCUMENTS}), True)]
    unsubscribe()
    bus.publish(Change("message", "deleted"))
    qtbot.wait(20)
    assert len(got) == 1
