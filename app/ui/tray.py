"""System tray icon: quick search, show window, quit."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from app.ui.icons import app_icon
from app.ui.main_window import MainWindow


class Tray(QSystemTrayIcon):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(app_icon(), window)
        self.window = window
        self.setToolTip("Strata — personal memory")
        menu = QMenu()
        self.quick_action = menu.addAction("Quick search…", self.quick_search)
        menu.addAction("Show Strata", window.bring_to_front)
        menu.addSeparator()
        menu.addAction("Quit", QApplication.quit)
        self._menu = menu  # the tray does not own its menu; keep it alive
        self.setContextMenu(menu)
        self.activated.connect(self._on_activated)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.quick_search()

    def quick_search(self) -> None:
        """The always-on-top popup with live results; Enter opens the hit in the window."""
        self.window.quick_search()


def install_tray(window: MainWindow) -> Tray | None:
    """Show the tray icon where the desktop has a tray; headless sessions simply skip it."""
    tray = Tray(window)
    if QSystemTrayIcon.isSystemTrayAvailable():
        tray.show()
    return tray
