"""The shell: sidebar order, screen switching, geometry memory, Ctrl+K, palette, tray."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from app.ui.app import build_window
from app.ui.theme import apply_theme, build_palette


def _window(qtbot, services=None):
    window = build_window(services or SimpleNamespace(settings=None))
    qtbot.addWidget(window)
    return window


def test_sidebar_lists_screens_in_contract_order(qtbot):
    window = _window(qtbot)
    labels = [window.sidebar.item(i).text() for i in range(window.sidebar.count())]
    assert labels == ["Search", "Insights", "Knowledge Base", "Connectors", "Memory", "Files", "Settings"]
    window.sidebar.setCurrentRow(6)
    assert window.current_key() == "settings"


def test_geometry_and_screen_are_remembered(qtbot):
    window = _window(qtbot)
    window.resize(700, 500)
    window.show_screen("memory")
    window.save_state()
    window.close()
    again = _window(qtbot)
    assert again.size().width() == 700
    assert again.current_key() == "memory"
    assert QSettings().value("window/screen") == "memory"


def test_ctrl_k_focuses_search_from_any_screen(qtbot):
    window = _window(qtbot)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    window.show_screen("settings")
    # Sent to the QWindow so it goes through Qt's shortcut map like a real key press.
    qtbot.keyClick(window.windowHandle(), Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.current_key() == "search"
    screen = window.screens["search"]
    qtbot.waitUntil(lambda: screen.query_edit.hasFocus(), timeout=2000)


def test_dark_and_light_palettes_differ():
    light, dark = build_palette(False), build_palette(True)
    assert light.window().color().lightness() > dark.window().color().lightness()
    app = QApplication.instance()
    assert apply_theme(app, dark=True) is True
    assert app.palette().base().color().lightness() < 100
    apply_theme(app, dark=False)


def test_tray_quick_search_entry_exists(qtbot):
    from app.ui.tray import Tray

    window = _window(qtbot)
    tray = Tray(window)
    actions = [a.text() for a in tray.contextMenu().actions() if a.text()]
    assert actions[:2] == ["Quick search…", "Show Strata"]
    window.focus_search("budget")
    assert window.screens["search"].query_edit.text() == "budget"
