"""The base of every screen: context access, background-op helpers, lazy first load, a banner."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.ui.context import UiContext
from app.ui.ops import MutateOp, QueryOp
from app.ui.toast import FloatingBanner
from app.ui.widgets import Banner, header, muted

RELOAD_COALESCE_MS = 150


class Screen(QWidget):
    """A sidebar page. Subclasses build widgets in `__init__` and load data in `reload()`.

    Nothing loads until the screen is first shown, so start-up only builds widgets.
    `watches` names the change kinds that make a visible screen reload.
    """

    title = "Screen"
    watches: frozenset[str] = frozenset()

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._loaded = False
        self._stale = False
        # Bursts of change events (an import publishes per batch) collapse into one reload.
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(RELOAD_COALESCE_MS)
        self._reload_timer.timeout.connect(self.reload)
        self.outer = QVBoxLayout(self)
        self.outer.setContentsMargins(18, 14, 18, 14)
        self.outer.addWidget(header(self.title))
        self.banner = Banner(self)
        self.outer.addWidget(self.banner)
        # Notices float over the page and close themselves: showing one never moves the content
        # under the user's pointer (the banner used to push every screen down until cleared).
        self.floating = FloatingBanner(self.banner, self)
        if self.watches:
            ctx.events.subscribe(self, self.watches, self._on_changed)

    # --- lifecycle -------------------------------------------------------------------------
    def activate(self) -> None:
        """Called by the main window when the screen becomes visible."""
        if not self._loaded or self._stale:
            self._loaded, self._stale = True, False
            self.reload()

    def reload(self) -> None:
        """Fetch this screen's data in background ops; default: nothing to load."""

    def _on_changed(self, changes: Any) -> None:
        # Hidden screens only mark themselves stale; they reload when shown again.
        if self.isVisible():
            self._reload_timer.start()
        else:
            self._stale = True

    # --- helpers ---------------------------------------------------------------------------
    def query(
        self,
        op: Callable[..., Any],
        success: Callable[[Any], None],
        *,
        failure: Callable[[BaseException], None] | None = None,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> None:
        q = QueryOp(parent=self, op=op, success=success).failure(failure or self.banner.show_error)
        if progress is not None:
            q.with_progress(progress)
        q.run_in_background()

    def mutate(
        self,
        op: Callable[..., Any],
        changes: Iterable[str],
        success: Callable[[Any], None] | None = None,
        *,
        failure: Callable[[BaseException], None] | None = None,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> None:
        m = MutateOp(parent=self, op=op, changes=changes, events=self.ctx.events, success=success)
        m.failure(failure or self.banner.show_error)
        if progress is not None:
            m.with_progress(progress)
        m.run_in_background()


def unavailable(screen: Screen, what: str) -> None:
    """Explain in place why a screen is empty: the service it shows is not part of this build."""
    screen.outer.addWidget(
        muted(f"{what} is not available in this installation (its service did not start).")
    )
    screen.outer.addStretch(1)


def body(screen: Screen) -> QVBoxLayout:
    layout = QVBoxLayout()
    layout.setContentsMargins(0, 0, 0, 0)
    screen.outer.addLayout(layout, 1)
    return layout


__all__ = ["Screen", "body", "unavailable"]
