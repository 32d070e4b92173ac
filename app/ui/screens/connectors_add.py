"""The "Add connector" dialog: kind, id, token (kept in the secret store), options, interval.

The token is checked while the dialog stays open: a refused token or an unreachable platform is
said in the dialog, in words about what to do, with everything typed still there to fix.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
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

from app.core.errors import ConnectorAuthFailed, ConnectorError, ConnectorUnavailable, StrataError
from app.ui.errors import describe

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

    def __init__(
        self,
        kinds: list[dict[str, Any]],
        parent: QWidget | None = None,
        *,
        check: Callable[[dict[str, Any], Callable[[Any], None], Callable[[BaseException], None]], None]
        | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add connector")
        # Wide enough for the token help and the option hints without clipping them.
        self.setMinimumWidth(560)
        self.check = check  # runs the add (with its token test) off the GUI thread
        self.result: Any = None
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
        self.token_help.setTextFormat(Qt.TextFormat.RichText)
        self.token_help.setOpenExternalLinks(True)
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
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.save_button.setText("Test and save")
        buttons.accepted.connect(self.submit)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.hide()
        self.form.addRow(self.status)
        self.form.addRow(buttons)
        self.kind.currentIndexChanged.connect(lambda _: self._kind_changed())
        self._kind_changed()

    def _kind_changed(self) -> None:
        spec = self.kinds.get(self.kind.currentData(), {})
        self.token_help.setText(f"<small>{html.escape(spec.get('token_help', ''))}</small>")
        for name in list(self.option_edits):
            self.form.removeRow(self.option_edits.pop(name))
        for name in spec.get("options", []):
            edit = QLineEdit()
            edit.setPlaceholderText(OPTION_HINTS.get(name, ""))
            self.option_edits[name] = edit
            self.form.insertRow(self.form.rowCount() - 2, name.replace("_", " ").capitalize(), edit)

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

    # --- checking --------------------------------------------------------------------------------
    def submit(self) -> None:
        """Test and save: without a checker (tests of the form) this just accepts."""
        values = self.values()
        if not values["token"]:
            self.show_problem("A token is needed.", "Paste the token from the platform (see the help above).")
            self.token.setFocus()
            return
        if self.check is None:
            self.accept()
            return
        self._set_busy(True)
        self.status.setText(f"Checking the token with {html.escape(self.kind.currentText())}…")
        self.status.setStyleSheet("")
        self.status.show()
        self.check(values, self._checked, self._check_failed)

    def _set_busy(self, on: bool) -> None:
        for w in (self.save_button, self.kind, self.token, self.connector_id):
            w.setEnabled(not on)

    def _checked(self, result: Any) -> None:
        self._set_busy(False)
        self.result = result
        self.accept()

    def _check_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        title, todo = explain(exc, self.kind.currentText())
        self.show_problem(title, todo, detail=str(exc))

    def show_problem(self, title: str, todo: str, *, detail: str = "") -> None:
        """The problem in the dialog; the typed token and options stay as they are."""
        self.status.setStyleSheet("color:#c92a2a;")
        self.status.setText(f"<b>{html.escape(title)}</b> {html.escape(todo)}")
        self.status.setToolTip(detail)  # the technical reason, for a bug report; not the message
        self.status.show()


def explain(exc: BaseException, platform: str) -> tuple[str, str]:
    """(what went wrong, what to do) in words, instead of the error class of a network library."""
    if isinstance(exc, ConnectorAuthFailed):
        return (
            f"{platform} refused this token.",
            "Copy the token again from the platform (the whole of it) and press Test and save.",
        )
    if isinstance(exc, ConnectorUnavailable):
        return (
            f"{platform} could not be reached.",
            "Check your internet connection (or the Base url option, if you set one) and press "
            "Test and save again. Nothing was saved.",
        )
    if isinstance(exc, ConnectorError | StrataError):
        title, _detail = describe(exc)
        return f"{title}.", getattr(exc, "hint", None) or "Fix the form and press Test and save again."
    title, _detail = describe(exc)
    return f"{title}.", "Nothing was saved; press Test and save to try again."
