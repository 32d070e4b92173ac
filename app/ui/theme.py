"""Light and dark palettes that follow the system colour scheme (Fusion style on every platform)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

# Accent used for highlights, links and matched search terms in both schemes.
ACCENT = "#4f7cff"
HIGHLIGHT_LIGHT = "#fff1a8"
HIGHLIGHT_DARK = "#6b5a00"


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def build_palette(dark: bool) -> QPalette:
    pal = QPalette()
    if dark:
        base, window, text, mid = "#1e1f22", "#2b2d31", "#e6e6e6", "#3a3c42"
        disabled = "#7a7a7a"
    else:
        base, window, text, mid = "#ffffff", "#f3f4f6", "#1b1b1f", "#d9dbe0"
        disabled = "#9a9a9a"
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: window,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: window,
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.ToolTipBase: base,
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: disabled,
        QPalette.ColorRole.Highlight: ACCENT,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: ACCENT,
        QPalette.ColorRole.Mid: mid,
    }
    for role, colour in roles.items():
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return pal


def term_highlight_colour(dark: bool) -> str:
    return HIGHLIGHT_DARK if dark else HIGHLIGHT_LIGHT


def apply_theme(app: QApplication, dark: bool | None = None) -> bool:
    """Apply the palette for `dark` (or the system's scheme); returns whether dark was chosen."""
    app.setStyle("Fusion")
    chosen = system_is_dark() if dark is None else dark
    app.setPalette(build_palette(chosen))
    app.setProperty("strataDark", chosen)
    return chosen


def follow_system_scheme(app: QApplication) -> None:
    """Re-apply the palette when the user flips the OS between light and dark."""
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda *_: apply_theme(app))


def is_dark(app: QApplication | None = None) -> bool:
    app = app or QApplication.instance()
    return bool(app and app.property("strataDark"))
