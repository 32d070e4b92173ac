"""The user's theme choice (system, light or dark), kept in the UI preferences and applied live."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from app.ui.theme import apply_theme

THEME_KEY = "ui/theme"
CHOICES = ("system", "light", "dark")


def current_choice() -> str:
    value = str(QSettings().value(THEME_KEY, "system"))
    return value if value in CHOICES else "system"


def apply_choice(app: QApplication, choice: str | None = None) -> bool:
    """Apply `choice` (default: the stored one) and store it; returns whether dark is on."""
    choice = choice or current_choice()
    if choice not in CHOICES:
        raise ValueError(f"theme must be one of {CHOICES}, got {choice!r}")
    QSettings().setValue(THEME_KEY, choice)
    return apply_theme(app, None if choice == "system" else choice == "dark")


def follow_system(app: QApplication) -> None:
    """When the OS flips light/dark, follow it only while the user's choice is "system"."""

    def changed(*_: object) -> None:
        if current_choice() == "system":
            apply_theme(app, None)

    QGuiApplication.styleHints().colorSchemeChanged.connect(changed)
