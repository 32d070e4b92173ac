"""Settings → the LLM API key: a password field, stored via the secret store, never shown back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.ui.events import SETTINGS

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

EMPTY_HINT = "paste a key (stored in the OS keyring, never in settings.toml)"
STORED_HINT = "•••••••• key stored; type a new key to replace it"


class LlmKeyRow(QWidget):
    """The key goes from this field straight to the secret store; the field is emptied once saved."""

    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__()
        self.screen = screen
        self.keys = screen.ctx.service("llm_keys")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.key_edit = QLineEdit()
        # Password mode also disables copy and drag out of the field.
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(EMPTY_HINT)
        self.key_edit.returnPressed.connect(screen.save_models)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Remove the stored key")
        self.clear_button.setEnabled(False)
        self.clear_button.clicked.connect(self.clear)
        row.addWidget(self.key_edit, 1)
        row.addWidget(self.clear_button)
        layout.addLayout(row)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        layout.addWidget(self.state)
        if self.keys is None:
            self.key_edit.setEnabled(False)
            self.state.setText("The secret store is not available in this window.")

    def entered(self) -> str:
        return self.key_edit.text().strip()

    def reload(self) -> None:
        if self.keys is not None:
            self.screen.query(self.keys.status, self.show_status)

    def show_status(self, status: Any) -> None:
        self.clear_button.setEnabled(status.stored)
        self.key_edit.setPlaceholderText(STORED_HINT if status.stored else EMPTY_HINT)
        where = "the OS keyring" if status.backend.startswith("keyring") else "the private secrets file"
        if status.source.startswith("env:"):
            text = f"{status.source[4:]} is set in the environment and is used instead of any stored key."
        elif status.stored:
            text = f"Key stored in {where}."
        else:
            text = "No key stored: fine for local servers that need none."
        self.state.setText(text)

    def saved(self, status: Any) -> None:
        """After the screen stored the entered key: forget it here and show the stored state."""
        self.key_edit.clear()
        self.show_status(status)

    def clear(self) -> None:
        keys = self.keys
        if keys is None:
            return

        def done(_removed: bool) -> None:
            self.screen.banner.show_message("API key removed.", "ok")

        self.screen.mutate(keys.clear, [SETTINGS], done)
