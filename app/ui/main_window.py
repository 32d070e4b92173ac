"""The main window: sidebar + stacked screens, remembered geometry, Ctrl+K, quick popup, welcome."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QStackedWidget,
    QWidget,
)

from app.ui.context import UiContext
from app.ui.highlight import query_terms
from app.ui.icons import SCREEN_ICONS, app_icon, icon
from app.ui.loading import LoadingPage
from app.ui.quick_popup import QuickPopup
from app.ui.screens.base import Screen

# Sidebar order is the contract: Search, Insights, Knowledge Base, Connectors, Memory, Settings;
# Files (the markdown memory files, issue 17) joins before Settings.
# (key, label, "module:Class"): screen modules pull in service-side libraries (SQLAlchemy, QtCharts),
# so they are imported when the services are attached, after the window is already on screen;
# until then a LoadingPage with a working search box stands in and the other screens are disabled.
SCREENS: list[tuple[str, str, str]] = [
    ("search", "Search", "app.ui.screens.search:SearchScreen"),
    ("insights", "Insights", "app.ui.screens.insights:InsightsScreen"),
    ("knowledge_base", "Knowledge Base", "app.ui.screens.knowledge_base:KnowledgeBaseScreen"),
    ("connectors", "Connectors", "app.ui.screens.connectors:ConnectorsScreen"),
    ("memory", "Memory", "app.ui.screens.memory:MemoryScreen"),
    ("files", "Files", "app.ui.screens.files:FilesScreen"),
    ("settings", "Settings", "app.ui.screens.settings:SettingsScreen"),
]
# The first-run page: in the stack, not in the sidebar (any sidebar row leaves it).
WELCOME = "app.ui.screens.welcome:WelcomeScreen"


def screen_class(target: str) -> Callable[[UiContext], Screen]:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


class MainWindow(QMainWindow):
    def __init__(self, ctx: UiContext) -> None:
        super().__init__()
        self.ctx = ctx
        ctx.navigate = self.show_screen
        self.setWindowTitle("Strata")
        self.setWindowIcon(app_icon())
        self.screens: dict[str, Screen] = {}
        self.welcome: Screen | None = None
        self.quick = QuickPopup(self.open_hit, now_ms=lambda: self.ctx.clock.now_ms())

        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setFixedWidth(170)
        self.sidebar.setIconSize(QSize(18, 18))
        self.sidebar.setStyleSheet(
            "QListWidget#sidebar{border:none;background:palette(window);padding-top:8px;}"
            "QListWidget#sidebar::item{padding:8px 12px;border-radius:6px;margin:1px 6px;}"
            "QListWidget#sidebar::item:selected{background:palette(highlight);color:palette(highlighted-text);}"
        )
        self.stack = QStackedWidget()
        for _key, label, _factory in SCREENS:
            item = QListWidgetItem(icon(SCREEN_ICONS[_key]), label)
            item.setData(Qt.ItemDataRole.UserRole, _key)
            self.sidebar.addItem(item)
        self.loading = LoadingPage()
        self.stack.addWidget(self.loading)
        self.sidebar.setCurrentRow(0)
        self._set_screens_enabled(False)
        self._search_requested = False  # Ctrl+K / tray search before the services: open on Search

        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.sidebar)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        shortcut = QShortcut(QKeySequence("Ctrl+K"), self)
        shortcut.setContext(Qt.ShortcutContext.ApplicationShortcut)
        shortcut.activated.connect(self.focus_search)
        for index in range(len(SCREENS)):
            # Ctrl+1..7 jump between screens, keyboard-first.
            jump = QShortcut(QKeySequence(f"Ctrl+{index + 1}"), self)
            jump.activated.connect(lambda i=index: self._jump(i))

        self._restore_geometry()
        if ctx.services is not None:
            self.attach_services(ctx.services)

    def attach_services(self, services: object) -> None:
        """Build the screens once the services exist (they may open after the window shows)."""
        self.ctx.services = services
        pending = self.loading.query_edit
        typed, cursor = pending.text(), pending.cursorPosition()
        to_search = self._search_requested or bool(typed.strip()) or pending.hasFocus()
        for key, _label, target in SCREENS:
            screen = screen_class(target)(self.ctx)
            screen.setObjectName(f"screen_{key}")
            self.screens[key] = screen
            self.stack.addWidget(screen)
        self.stack.removeWidget(self.loading)
        self.loading.deleteLater()
        self._set_screens_enabled(True)
        self.sidebar.currentRowChanged.connect(self._show_row)
        self.sidebar.itemClicked.connect(lambda item: self._show_row(self.sidebar.row(item)))
        self.quick.set_memory(self.ctx.service("memory"))
        keys = [k for k, _, _ in SCREENS]
        last = "search" if to_search else QSettings().value("window/screen", "search")
        self.sidebar.setCurrentRow(keys.index(last) if last in keys else 0)
        self._show_row(self.sidebar.currentRow())
        if to_search:
            # What was typed while the data dir opened is searched now, cursor where it was.
            self.focus_search(typed if typed.strip() else None)
            if typed.strip():
                self.screens["search"].query_edit.setCursorPosition(cursor)  # type: ignore[attr-defined]
        from app.ui.notices import install_notices

        install_notices(self)  # changes made elsewhere refresh the views and show a notice

    def show_welcome(self) -> Screen | None:
        """First run: the welcome page in place of the current screen (unless a search is under way)."""
        if not self.ready:
            return None
        search = self.screens["search"]
        if getattr(search, "query_edit", None) is not None and search.query_edit.text().strip():  # type: ignore[attr-defined]
            return None  # the user is already searching; do not pull the page from under them
        if self.welcome is None:
            self.welcome = screen_class(WELCOME)(self.ctx)
            self.welcome.setObjectName("screen_welcome")
            self.stack.addWidget(self.welcome)
        self.stack.setCurrentWidget(self.welcome)
        self.sidebar.clearSelection()  # no sidebar page is showing; a click on any leaves this one
        self.welcome.activate()
        return self.welcome

    def show_failure(self, text: str) -> None:
        """The services could not open: say why in place of the screens."""
        self.loading.show_failure(text)

    def _set_screens_enabled(self, enabled: bool) -> None:
        # Search (row 0) always answers; the others need their services.
        for row in range(1, self.sidebar.count()):
            item = self.sidebar.item(row)
            flags = item.flags()
            on = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            item.setFlags(flags | on if enabled else flags & ~on)

    # --- navigation ------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return bool(self.screens)

    def _show_row(self, row: int) -> None:
        if row < 0 or not self.ready:
            return
        self.stack.setCurrentIndex(row)
        key = SCREENS[row][0]
        self.screens[key].activate()
        QSettings().setValue("window/screen", key)

    def _jump(self, row: int) -> None:
        if self.ready or row == 0:  # the other screens wait for their services
            self.sidebar.setCurrentRow(row)

    def show_screen(self, key: str) -> Screen:
        row = [k for k, _, _ in SCREENS].index(key)
        if self.sidebar.currentRow() != row:
            self.sidebar.setCurrentRow(row)
        else:
            self._show_row(row)  # also leaves the welcome page
        return self.screens[key]

    def current_key(self) -> str:
        if self.welcome is not None and self.stack.currentWidget() is self.welcome:
            return "welcome"
        row = self.sidebar.currentRow()
        return SCREENS[row][0] if row >= 0 else "search"

    def focus_search(self, text: str | None = None) -> None:
        """Ctrl+K and the tray: bring the window up on Search with the query box focused."""
        self.bring_to_front()
        if not self.ready:
            self._search_requested = True
            self.loading.focus_query(text)
            return
        screen = self.show_screen("search")
        screen.focus_query(text)  # type: ignore[attr-defined]

    def quick_search(self, text: str = "") -> None:
        """The popup (tray, `strata quick`): search without bringing the whole window up."""
        self.quick.popup(text)

    def open_hit(self, hit: Any, text: str) -> None:
        """Enter in the quick popup: the window on Search with that query, the chosen hit opened."""
        self.focus_search(text or None)
        if not self.ready:
            return
        screen = self.screens["search"]
        detail = getattr(screen, "detail", None)
        if detail is not None:
            detail.show_hit(hit, query_terms(text))

    def bring_to_front(self) -> None:
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    # --- persistence -----------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = QSettings().value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1180, 760)

    def save_state(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        if self.ready and self.current_key() != "welcome":
            settings.setValue("window/screen", self.current_key())
        settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
