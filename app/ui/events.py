"""Change events for the window: mutations name what changed, each view refreshes only that."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

# The kinds of data a view can depend on; a MutateOp names the ones it touched.
MESSAGES = "messages"
SUMMARIES = "summaries"
INSIGHTS = "insights"
DOCUMENTS = "documents"
CONNECTORS = "connectors"
FORGETTING = "forgetting"
SETTINGS = "settings"
FILES = "files"
ALL_KINDS = frozenset({MESSAGES, SUMMARIES, INSIGHTS, DOCUMENTS, CONNECTORS, FORGETTING, SETTINGS, FILES})


@dataclass(frozen=True, slots=True)
class Changes:
    """A change descriptor: the set of data kinds a mutation touched."""

    kinds: frozenset[str]

    @classmethod
    def of(cls, *kinds: str) -> Changes:
        unknown = set(kinds) - ALL_KINDS
        if unknown:
            raise ValueError(f"unknown change kinds {sorted(unknown)}; use names from app.ui.events")
        return cls(frozenset(kinds))

    def touches(self, *kinds: str) -> bool:
        return bool(self.kinds.intersection(kinds))


class UiEvents(QObject):
    """The window's event bus. `changed` is always emitted on the GUI thread.

    Publishing from a worker thread is allowed: the signal is queued to the GUI thread because
    the bus object lives there.
    """

    changed = Signal(object)

    def publish(self, changes: Changes) -> None:
        if changes.kinds:
            self.changed.emit(changes)

    def subscribe(
        self, view: QObject, kinds: set[str] | frozenset[str], callback: Callable[[Changes], None]
    ) -> None:
        """Call `callback(changes)` when a change touches one of `kinds`; tied to `view`'s lifetime."""
        wanted = frozenset(kinds)

        def relay(changes: Changes) -> None:
            if changes.kinds & wanted:
                callback(changes)

        self.changed.connect(relay)
        # A closed view must not be called back: drop the connection with the view.
        view.destroyed.connect(lambda *_: _safe_disconnect(self.changed, relay))


def _safe_disconnect(signal: Any, slot: Callable[..., Any]) -> None:
    with contextlib.suppress(RuntimeError, TypeError):
        signal.disconnect(slot)


# Core event entities (app.core.events.Change.entity) → the view kinds above.
_ENTITY_KINDS = {
    "message": MESSAGES,
    "messages": MESSAGES,
    "summary": SUMMARIES,
    "summaries": SUMMARIES,
    "document": DOCUMENTS,
    "documents": DOCUMENTS,
    "insight": INSIGHTS,
    "insights": INSIGHTS,
    "connector": CONNECTORS,
    "connectors": CONNECTORS,
    "forgetting": FORGETTING,
    "forget_run": FORGETTING,
    "settings": SETTINGS,
    "memory_file": FILES,
}


def kinds_for_entity(entity: str) -> frozenset[str]:
    kind = _ENTITY_KINDS.get(entity)
    if kind is not None:
        return frozenset({kind})
    # An entity we do not know yet (a new feature): refresh everything rather than show stale data.
    return ALL_KINDS


def bridge_core_events(bus: Any, events: UiEvents) -> Callable[[], None]:
    """Forward core `Change`s (published on any thread) to the window's bus on the GUI thread.

    The CLI, the REST server and scheduled jobs in this process mutate through the services;
    this is how the window hears about those changes. Returns the unsubscribe function.
    """

    def forward(change: Any) -> None:
        events.publish(Changes(kinds_for_entity(str(getattr(change, "entity", "")))))

    return bus.subscribe(forward)
