"""A tiny synchronous event bus: mutations publish what changed, views refresh only that."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    """What a mutation changed: `entity` (message, summary, document, insight, connector, …),
    `action` (created, updated, deleted, pinned, archived, …) and the affected ids."""

    entity: str
    action: str
    ids: tuple[str, ...] = ()
    details: dict[str, object] = field(default_factory=dict)


Listener = Callable[[Change], None]


class EventBus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, change: Change) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            # A broken listener (say, a closed window) must not fail the mutation that published.
            try:
                listener(change)
            except Exception:
                log.exception("event listener failed for %s", change)
