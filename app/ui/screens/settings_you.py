"""Settings → You: the names you go by in chats (Open loops needs them) and the app's theme."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
)

from app.ui.events import INSIGHTS, SETTINGS
from app.ui.theme_choice import CHOICES, apply_choice, current_choice
from app.ui.widgets import muted

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

THEME_LABELS = {"system": "Follow the system", "light": "Light", "dark": "Dark"}


def parse_names(text: str) -> list[str]:
    """'alex, Alex Kim ,alex@example.com' → the names, blanks dropped, order and case kept."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


class YouSection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("You")
        self.screen = screen
        self.insights = screen.ctx.service("insights")
        form = QFormLayout(self)
        self.names = QLineEdit()
        self.names.setObjectName("my_names")
        self.names.setPlaceholderText("e.g. alex, Alex Kim, alex@example.com")
        self.save_button = QPushButton("Save names")
        self.save_button.clicked.connect(self.save_names)
        row = QHBoxLayout()
        row.addWidget(self.names, 1)
        row.addWidget(self.save_button)
        form.addRow("Names you go by", row)
        form.addRow(
            muted(
                "How you appear in your chats, separated by commas. Open loops uses them to tell "
                "what you promised from what others asked of you."
            )
        )
        self.theme = QComboBox()
        self.theme.setObjectName("theme")
        for choice in CHOICES:
            self.theme.addItem(THEME_LABELS[choice], choice)
        self.theme.setCurrentIndex(CHOICES.index(current_choice()))
        self.theme.currentIndexChanged.connect(lambda _i: self.apply_theme())
        form.addRow("Theme", self.theme)
        if self.insights is None:
            self.names.setEnabled(False)
            self.save_button.setEnabled(False)

    def reload(self) -> None:
        if self.insights is not None:
            self.screen.query(self.insights.me, self._show_names)

    def _show_names(self, names: Any) -> None:
        if not self.names.hasFocus():  # never overwrite what the user is typing
            self.names.setText(", ".join(names))

    def save_names(self) -> None:
        names = parse_names(self.names.text())
        if not names:
            self.screen.banner.show_message("Give at least one name, e.g. the one your chats show.", "error")
            return
        insights = self.insights

        def done(saved: Any) -> None:
            self.names.setText(", ".join(saved))
            self.screen.banner.show_message(f"Saved: Open loops now treats {', '.join(saved)} as you.", "ok")

        self.screen.mutate(lambda: insights.set_me(names), [INSIGHTS, SETTINGS], done)

    def apply_theme(self) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_choice(app, self.theme.currentData())
