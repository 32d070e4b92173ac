"""Settings → Privacy choices: what is masked for agents and LLMs, whether agents may reveal, and
the daily LLM caps (written to settings.toml, applied at the next start)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QSpinBox,
)

from app.ui.events import SETTINGS
from app.ui.settings_file import update_settings_file
from app.ui.widgets import muted

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

# `[privacy] redact` classes, in the user's words.
CLASS_LABELS = {
    "secrets": "API keys, tokens and passwords",
    "cards": "Card numbers",
    "ibans": "Bank account numbers (IBAN)",
    "emails": "E-mail addresses",
    "phones": "Phone numbers",
}


class MaskingSection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("What leaves this computer")
        self.screen = screen
        settings = screen.ctx.settings
        form = QFormLayout(self)
        form.addRow(
            muted(
                "Masked in results for agents (REST, MCP) and in LLM prompts; secrets are always "
                "masked in prompts."
            )
        )
        redact = set(settings.privacy.redact) if settings is not None else set(CLASS_LABELS)
        self.classes: dict[str, QCheckBox] = {}
        for key, label in CLASS_LABELS.items():
            box = QCheckBox(label)
            box.setObjectName(f"mask_{key}")
            box.setChecked(key in redact)
            self.classes[key] = box
            form.addRow(box)
        self.allow_reveal = QCheckBox("Let agents ask for the unmasked text (reveal=true)")
        self.allow_reveal.setChecked(bool(settings is not None and settings.privacy.allow_reveal))
        form.addRow(self.allow_reveal)
        self.token_cap = QSpinBox()
        self.token_cap.setRange(0, 100_000_000)
        self.token_cap.setSingleStep(50_000)
        self.token_cap.setGroupSeparatorShown(True)
        self.token_cap.setSuffix(" tokens")
        self.cost_cap = QDoubleSpinBox()
        self.cost_cap.setRange(0.0, 10_000.0)
        self.cost_cap.setDecimals(2)
        self.cost_cap.setPrefix("$ ")
        self.cost_cap.setSpecialValueText("no cost cap")
        if settings is not None:
            self.token_cap.setValue(settings.llm.daily_token_cap)
            self.cost_cap.setValue(settings.llm.daily_cost_cap)
        form.addRow("LLM daily token cap", self.token_cap)
        form.addRow("LLM daily cost cap", self.cost_cap)
        save = QPushButton("Save privacy choices")
        save.clicked.connect(self.save)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(save)
        form.addRow(row)

    def updates(self) -> dict[str, Any]:
        return {
            "privacy": {
                "redact": [key for key, box in self.classes.items() if box.isChecked()],
                "allow_reveal": self.allow_reveal.isChecked(),
            },
            "llm": {
                "daily_token_cap": self.token_cap.value(),
                "daily_cost_cap": round(self.cost_cap.value(), 2),
            },
        }

    def save(self) -> None:
        settings = self.screen.ctx.settings
        if settings is None:
            return
        path, updates = settings.layout.settings_file, self.updates()

        def done(_: Any) -> None:
            self.screen.banner.show_message("Privacy choices saved; they apply at the next start.", "ok")

        self.screen.mutate(lambda: update_settings_file(path, updates), [SETTINGS], done)
