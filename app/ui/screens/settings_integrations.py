"""Settings → integrations: API token copy and MCP client install (Claude Desktop, Cursor)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QPushButton

from app.mcp.install import install, server_entry, snippet

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

CLIENT_LABELS = {"claude-desktop": "Claude Desktop", "cursor": "Cursor"}


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
        mcp_row = QHBoxLayout()
        self.install_buttons: dict[str, QPushButton] = {}
        for client, label in CLIENT_LABELS.items():
            button = QPushButton(f"Install for {label}")
            button.setToolTip(f"Add Strata to {label}'s MCP servers (other entries are kept)")
            button.clicked.connect(lambda _=False, c=client: self.install_mcp(c))
            self.install_buttons[client] = button
            mcp_row.addWidget(button)
        self.copy_snippet = QPushButton("Copy config snippet")
        self.copy_snippet.clicked.connect(self.copy_mcp_snippet)
        mcp_row.addWidget(self.copy_snippet)
        mcp_row.addStretch(1)
        form.addRow("MCP", mcp_row)

    def reload(self) -> None:
        """Nothing to prefetch: the token is read only when asked for."""

    def copy_api_token(self) -> None:
        settings = self.screen.ctx.settings
        if settings is None:
            return
        path = settings.layout.token_file

        def read() -> str:
            if path.exists():
                return path.read_text(encoding="utf-8").strip()
            # First use: create it the way the server does (FastAPI only loads here, not at start-up).
            from app.api.security import load_or_create_token

            return load_or_create_token(path)

        self.screen.query(read, lambda token: self.screen.copy_to_clipboard(token, "API token"))

    def install_mcp(self, client: str) -> None:
        settings = self.screen.ctx.settings
        if settings is None:
            return
        data_dir = settings.data_dir

        def done(result: Any) -> None:
            verb = "Replaced the Strata entry in" if result.replaced else "Added Strata to"
            self.screen.banner.show_message(
                f"{verb} {html.escape(str(result.config_path))}. Restart {CLIENT_LABELS[client]} to use it.",
                "ok",
            )

        self.screen.query(lambda: install(client, data_dir), done)

    def copy_mcp_snippet(self) -> None:
        settings = self.screen.ctx.settings
        if settings is not None:
            text = snippet(server_entry(settings.data_dir))
            self.screen.copy_to_clipboard(text, "MCP config snippet")
