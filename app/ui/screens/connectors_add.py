"""The "Add connector" dialog: kind, id, token (kept in the secret store), options, interval."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

LIST_OPTIONS = frozenset({"channels", "guilds", "chats", "dm_users"})
OPTION_HINTS = {
    "channels": "general, random (empty: every channel the token can read)",
    "guilds": "server ids, comma-separated (empty: all)",
    "chats": "chat ids, comma-separated (empty: all the bot sees)",
    "base_url": "only for a self-hosted or test server",
    "poll_timeout": "seconds",
    "thread_lookback_days": "days before the cursor checked for new thread replies (default 14, 0: off)",
    "dm_users": "user ids whose DM with the bot is read, comma-separated",
}


def parse_option(name: str, text: str) -> Any:
    """Form text → option value, the same way the CLI reads KEY=VALUE."""
    text = text.strip()
    if name in LIST_OPTIONS:
        return [v.strip() for v in text.split(",") if v.strip()]
    return int(text) if text.isdigit() else text


class AddConnectorDialog(QDialog):
    """Collects what `ConnectorService.add` needs; the screen runs the add (with its test) off-thread."""

    def __init__(self, kinds: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add connector")
        self.kinds = {k["kind"]: k for k in kinds}
        self.form = QFormLayout(self)
        self.kind = QComboBox()
        for k in kinds:
            self.kind.addItem(k["title"], k["kind"])
        self.connector_id = QLineEdit()
        self.connector_id.setPlaceholderText("defaults to the kind, e.g. slack")
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_help = QLabel()
        self.token_help.setWordWrap(True)
        self.interval = QSpinBox()
        self.interval.setRange(1, 24 * 60)
        self.interval.setValue(15)
        self.interval.setSuffix(" min")
        self.form.addRow("Platform", self.kind)
        self.form.addRow("Name", self.connector_id)
        self.form.addRow("Token", self.token)
        self.form.addRow("", self.token_help)
        self.form.addRow("Sync every", self.interval)
        self.option_edits: dict[str, QLineEdit] = {}
        self._option_rows: list[QWidget] = []
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Test and save")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        self.form.addRow(buttons)
        self.kind.currentIndexChanged.connect(lambda _: self._kind_changed())
        self._kind_changed()

    def _kind_changed(self) -> None:
        spec = self.kinds.get(self.kind.currentData(), {})
        self.token_help.setText(f"<small>{spec.get('token_help', '')}</small>")
        for name in list(self.option_edits):
            self.form.removeRow(self.option_edits.pop(name))
        for name in spec.get("options", []):
            edit = QLineEdit()
            edit.setPlaceholderText(OPTION_HINTS.get(name, ""))
            self.option_edits[name] = edit
            self.form.insertRow(self.form.rowCount() - 1, name.replace("_", " ").capitalize(), edit)

    def values(self) -> dict[str, Any]:
        """Keyword arguments for ConnectorService.add (token included; never logged)."""
        options = {n: parse_option(n, e.text()) for n, e in self.option_edits.items() if e.text().strip()}
        return {
            "kind": self.kind.currentData(),
            "token": self.token.text().strip(),
            "connector_id": self.connector_id.text().strip() or None,
            "options": options,
            "interval_minutes": self.interval.value(),
        }
