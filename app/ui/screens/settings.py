"""Settings screen, people first: you (names, theme), retention, schedules; then storage, models,
API server, MCP install and privacy. Nothing here needs hand-editing settings.toml."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.context import UiContext
from app.ui.events import SETTINGS
from app.ui.screens.base import Screen
from app.ui.screens.settings_backup import BackupRow
from app.ui.screens.settings_integrations import IntegrationsSection
from app.ui.screens.settings_llm_key import LlmKeyRow
from app.ui.screens.settings_masking import MaskingSection
from app.ui.screens.settings_privacy import PrivacySection
from app.ui.screens.settings_retention import RetentionSection
from app.ui.screens.settings_schedules import SchedulesSection
from app.ui.screens.settings_you import YouSection
from app.ui.settings_file import update_settings_file

# Providers a person chooses from (the hashing embedder exists for tests only and is not offered).
PROVIDERS = {
    "local": "On this computer: MiniLM, English (fast)",
    "multilingual": "On this computer: multilingual-e5-small (many languages, slower)",
    "openai": "An OpenAI-compatible service (sends text to it)",
}


_SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse


class SettingsScreen(Screen):
    title = "Settings"
    watches = frozenset({SETTINGS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        inner = QWidget()
        self.form_area = QVBoxLayout(inner)
        scroll.setWidget(inner)
        self.outer.addWidget(scroll, 1)
        settings = ctx.settings
        self.you = YouSection(self)
        self.form_area.addWidget(self.you)
        self.retention = RetentionSection(self)
        self.form_area.addWidget(self.retention)
        self.schedules = SchedulesSection(self)
        self.form_area.addWidget(self.schedules)
        self._build_storage(settings)
        self._build_models(settings)
        self._build_api(settings)
        self.integrations = IntegrationsSection(self)
        self.form_area.addWidget(self.integrations)
        self.masking = MaskingSection(self)
        self.form_area.addWidget(self.masking)
        self.privacy = PrivacySection(self)
        self.form_area.addWidget(self.privacy)
        self.form_area.addStretch(1)

    def reload(self) -> None:
        self.refresh_server_status()
        self.you.reload()
        self.schedules.reload()
        self.integrations.reload()
        self.llm_key.reload()
        self.privacy.reload()
        memory = self.ctx.service("memory")
        if memory is not None:
            self.query(memory.embedding_model, self._show_model)
            if hasattr(memory, "facets"):
                self.query(memory.facets, lambda facets: self.retention.set_known(facets.channels))

    def focus_names(self) -> None:
        """Where other screens send the user to say who they are (e.g. Insights → Open loops)."""
        self.you.names.setFocus()

    def _show_model(self, model_and_dims: tuple[str, int]) -> None:
        # The model search really uses (a pending switch keeps the old one until re-embedded).
        model, dims = model_and_dims
        self.model_in_use.setText(f"{model} ({dims} dimensions)" if model else "unknown")

    # --- sections --------------------------------------------------------------------------
    def group(self, title: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        self.form_area.addWidget(box)
        return form

    def _build_storage(self, settings: Any) -> None:
        form = self.group("Storage")
        self.data_dir = QLineEdit(str(settings.data_dir) if settings is not None else "")
        self.data_dir.setReadOnly(True)
        self.data_dir.setToolTip("Start with --data-dir DIR or STRATA_DATA_DIR to use another folder")
        form.addRow("Data directory", self.data_dir)
        self.backup = BackupRow(self)
        form.addRow("Export / backup", self.backup)

    def _build_models(self, settings: Any) -> None:
        form = self.group("Embeddings and LLM (applied at next start)")
        self.provider = QComboBox()
        self.provider.setObjectName("embedding_provider")
        for key, label in PROVIDERS.items():
            self.provider.addItem(label, key)
        self.provider.currentIndexChanged.connect(lambda _i: self._provider_changed())
        self.model_in_use = QLabel("…")
        self.model_in_use.setObjectName("model_in_use")
        self.model_in_use.setTextInteractionFlags(self.model_in_use.textInteractionFlags() | _SELECTABLE)
        self.embed_model = QLineEdit()
        self.embed_base_url = QLineEdit()
        self.embed_base_url.setPlaceholderText("https://api.openai.com/v1 or a local server")
        self.llm_enabled = QCheckBox("Use an OpenAI-compatible LLM for summaries and insights")
        self.llm_base_url = QLineEdit()
        self.llm_base_url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.llm_model = QLineEdit()
        if settings is not None:
            provider = settings.embedding.provider
            if provider not in PROVIDERS:  # set outside the app (tests, STRATA_EMBEDDING__PROVIDER)
                self.provider.addItem(f"{provider} (set in settings.toml or the environment)", provider)
            self.provider.setCurrentIndex(self.provider.findData(provider))
            self.embed_model.setText(settings.embedding.model)
            self.embed_base_url.setText(settings.embedding.base_url or "")
            self.llm_enabled.setChecked(settings.llm.enabled)
            self.llm_base_url.setText(settings.llm.base_url or "")
            self.llm_model.setText(settings.llm.model)
        form.addRow("Search model in use", self.model_in_use)
        form.addRow("Embedding provider", self.provider)
        form.addRow("Service model", self.embed_model)
        form.addRow("Service base URL", self.embed_base_url)
        self._provider_changed()
        form.addRow(self.llm_enabled)
        form.addRow("LLM base URL", self.llm_base_url)
        form.addRow("LLM model", self.llm_model)
        self.llm_key = LlmKeyRow(self)
        form.addRow("LLM API key", self.llm_key)
        self.models_form = form
        save = QPushButton("Save")
        save.clicked.connect(self.save_models)
        form.addRow(save)

    def _build_api(self, settings: Any) -> None:
        form = self.group("API server (REST + MCP on this machine)")
        self.api_enabled = QCheckBox("Serve while the app runs")
        self.api_port = QSpinBox()
        self.api_port.setRange(1024, 65535)
        if settings is not None:
            self.api_enabled.setChecked(settings.api.enabled_in_app)
            self.api_port.setValue(settings.api.port)
        self.api_status = QLabel("")
        apply = QPushButton("Apply")
        apply.clicked.connect(self.apply_server)
        row = QHBoxLayout()
        row.addWidget(self.api_port)
        row.addWidget(apply)
        row.addStretch(1)
        form.addRow(self.api_enabled)
        form.addRow("Port", row)
        form.addRow("Status", self.api_status)
        self.api_form = form

    # --- behaviour -------------------------------------------------------------------------
    def _provider_changed(self) -> None:
        # The model name and URL only mean something for a service; the local models are fixed.
        service = self.provider.currentData() == "openai"
        self.embed_model.setEnabled(service)
        self.embed_base_url.setEnabled(service)

    def save_models(self) -> None:
        settings = self.ctx.settings
        if settings is None:
            return
        updates = {
            "embedding": {
                "provider": self.provider.currentData(),
                "model": self.embed_model.text().strip() or None,
                "base_url": self.embed_base_url.text().strip() or None,
            },
            "llm": {
                "enabled": self.llm_enabled.isChecked(),
                "base_url": self.llm_base_url.text().strip() or None,
                "model": self.llm_model.text().strip() or None,
            },
        }
        path = settings.layout.settings_file
        key, keys = self.llm_key.entered(), self.llm_key.keys

        def save() -> Any:
            # The key first: a key refused as malformed leaves everything (and the field) as it was.
            status = keys.set(key) if key and keys is not None else None
            update_settings_file(path, updates)  # the key is never part of `updates`
            return status

        def done(status: Any) -> None:
            stored = ""
            if status is not None:
                self.llm_key.saved(status)
                stored = "API key stored (used from the next LLM call). "
            self.banner.show_message(f"{stored}Saved to {path}. Restart Strata to apply.", "ok")

        self.mutate(save, [SETTINGS], done)

    def apply_server(self) -> None:
        """Persist on/off + port, then start or stop the hosted server off the GUI thread."""
        settings = self.ctx.settings
        if settings is None:
            return
        enabled, port = self.api_enabled.isChecked(), self.api_port.value()
        path = settings.layout.settings_file
        host = self.ctx.hosting
        api = getattr(host, "api", None)

        def apply() -> str:
            update_settings_file(path, {"api": {"enabled_in_app": enabled, "port": port}})
            if api is None:
                return "saved; the server starts with the desktop app"
            if enabled:
                api.start(port)
                return f"serving on http://{settings.api.host}:{port}/api"
            api.stop()
            return "stopped"

        def done(text: str) -> None:
            self.banner.show_message(f"API server {text}.", "ok")
            self.refresh_server_status()

        self.api_status.setText("starting…" if enabled else "stopping…")
        self.mutate(apply, [SETTINGS], done, failure=self._server_failed)

    def _server_failed(self, exc: BaseException) -> None:
        self.banner.show_error(exc)
        self.refresh_server_status()

    def refresh_server_status(self) -> None:
        api = getattr(self.ctx.hosting, "api", None)
        if api is None:
            self.api_status.setText("not hosted in this window")
        elif api.running:
            self.api_status.setText(f"running on 127.0.0.1:{api.port}")
        else:
            self.api_status.setText("stopped")

    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def copy_to_clipboard(self, text: str, what: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.banner.show_message(f"{what} copied to the clipboard.", "ok")
