"""Turn a screen's banner into a floating notice: over the content (never pushing it down),
closed by a click or after a few seconds (errors stay longer, so they can be read)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QWidget

from app.ui.widgets import Banner

OK_MS = 6_000
ERROR_MS = 20_000
MARGIN = 12


class FloatingBanner(QObject):
    """Keeps `banner` floating at the bottom of `host`; hides it on timeout or click."""

    def __init__(self, banner: Banner, host: QWidget) -> None:
        super().__init__(host)
        self.banner, self.host = banner, host
        layout = host.layout()
        if layout is not None:
            layout.removeWidget(banner)  # out of the layout: showing it moves nothing
        banner.setParent(host)
        banner.setToolTip("Click to close")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(banner.clear_message)
        host.installEventFilter(self)
        banner.installEventFilter(self)
        original = banner.show_message

        def show_message(text: str, kind: str = "info", *, rich: bool = False) -> None:
            original(text, kind, rich=rich)
            self.place()
            banner.raise_()
            self.timer.start(ERROR_MS if kind == "error" else OK_MS)

        banner.show_message = show_message  # type: ignore[method-assign]

    def place(self) -> None:
        width = max(200, self.host.width() - 2 * MARGIN)
        self.banner.setFixedWidth(width)
        height = self.banner.heightForWidth(width)
        self.banner.setFixedHeight(max(height, self.banner.sizeHint().height()))
        self.banner.move(MARGIN, self.host.height() - self.banner.height() - MARGIN)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.host and event.type() == QEvent.Type.Resize and self.banner.isVisible():
            self.place()
        elif watched is self.banner and event.type() == QEvent.Type.MouseButtonRelease:
            assert isinstance(event, QMouseEvent)
            self.timer.stop()
            self.banner.clear_message()
            return True
        return super().eventFilter(watched, event)
