"""Settings screen: data dir, embeddings, LLM endpoint, API server, MCP install, schedules."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.context import UiContext
from app.ui.screens.base import Screen
from app.ui.widgets import muted


class SettingsScreen(Screen):
    title = "Settings"

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        inner = QWidget()
        self.form_area = QVBoxLayout(inner)
        scroll.setWidget(inner)
        self.outer.addWidget(scroll, 1)
        self._build_storage()
        self._build_embeddings()
        self._build_api()
        self.form_area.addStretch(1)
        self._token = ""

    # --- sections --------------------------------------------------------------------------
    def _group(self, title: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        self.form_area.addWidget(box)
        return form

    def _build_storage(self) -> None:
        form = self._group("Storage")
        settings = self.ctx.settings
        self.data_dir = QLineEdit(str(settings.data_dir) if settings is not None else "")
        self.data_dir.setReadOnly(True)
        self.data_dir.setToolTip("Set STRATA_DATA_DIR or --data-dir before starting to use another folder")
        form.addRow("Data directory", self.data_dir)

    def _build_embeddings(self) -> None:
        form = self._group("Embeddings")
        self.provider = QComboBox()
        self.provider.addItems(["local", "openai", "hashing"])
        settings = self.ctx.settings
        if settings is not None:
            self.provider.setCurrentText(settings.embedding.provider)
        form.addRow("Provider", self.provider)
        form.addRow(muted("local = offline MiniLM (384-d); openai = any OpenAI-compatible endpoint"))

    def _build_api(self) -> None:
        form = self._group("API server and MCP")
        settings = self.ctx.settings
        self.api_enabled = QCheckBox("Serve REST + MCP on 127.0.0.1 while the app runs")
        self.api_port = QSpinBox()
        self.api_port.setRange(1024, 65535)
        if settings is not None:
            self.api_enabled.setChecked(settings.api.enabled_in_app)
            self.api_port.setValue(settings.api.port)
        form.addRow(self.api_enabled)
        form.addRow("Port", self.api_port)
        token_row = QHBoxLayout()
        self.copy_token = QPushButton("Copy API token")
        self.copy_token.clicked.connect(self._copy_token)
        token_row.addWidget(self.copy_token)
        token_row.addStretch(1)
        form.addRow("Token", token_row)

    # --- behaviour -------------------------------------------------------------------------
    def _copy_token(self) -> None:
        settings = self.ctx.settings
        if settings is None:
            return
        path = settings.layout.token_file

        def read() -> str:
            return path.read_text(encoding="utf-8").strip() if path.exists() else ""

        self.query(read, self._token_loaded)

    def _token_loaded(self, token: str) -> None:
        if not token:
            self.banner.show_message("No API token yet: start the API server once to create it.", "info")
            return
        QGuiApplication.clipboard().setText(token)
        self._token = token
        self.banner.show_message("API token copied to the clipboard.", "ok")
