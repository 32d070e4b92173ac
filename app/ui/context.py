"""What every screen receives: the services, the event bus, settings and the debug guard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.core.clock import Clock, SystemClock
from app.ui.events import UiEvents
from app.ui.ops import GuiThreadGuard


@dataclass
class UiContext:
    """Built once by `run_app`; screens never reach for globals."""

    services: Any
    events: UiEvents
    guard: GuiThreadGuard | None = None
    clock: Clock = field(default_factory=SystemClock)
    hosting: Any = None  # the AppHost (scheduler + API server) when running as the real app
    unsubscribe_core: Callable[[], None] | None = None
    navigate: Callable[[str], Any] | None = None  # show a screen by key; set by the main window

    def service(self, name: str) -> Any | None:
        """The named service, wrapped by the GUI-thread guard in debug runs; None when absent."""
        svc = getattr(self.services, name, None)
        if svc is None or self.guard is None:
            return svc
        return self.guard.wrap(svc, name)

    @property
    def settings(self) -> Any:
        return getattr(self.services, "settings", None)
