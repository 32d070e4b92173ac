"""Settings → integrations: API token copy and MCP client install."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QPushButton

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen


class IntegrationsSection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("Token and MCP clients")
        self.screen = screen
        form = QFormLayout(self)
        row = QHBoxLayout()
        self.copy_token = QPushButton("Copy API token")
        self.copy_token.setToolTip("For REST clients: Authorization: Bearer <token>")
        self.copy_token.clicked.connect(self.copy_api_token)
        row.addWidget(self.copy_token)
        row.addStretch(1)
        form.addRow("REST token", row)

    def reload(self) -> None:
        """Nothing to prefetch: the token is read only when asked for."""

    def copy_api_token(self) -> None:
        settings = self.screen.ctx.settings
        if settings is None:
            return
        path = settings.layout.token_file

        def read() -> str:
            return path.read_text(encoding="utf-8").strip() if path.exists() else ""

        self.screen.query(read, self._token_loaded)

    def _token_loaded(self, token: str) -> None:
        if not token:
            self.screen.banner.show_message(
                "No API token yet: start the API server once to create it.", "info"
            )
            return
        self.screen.copy_to_clipboard(token, "API token")
