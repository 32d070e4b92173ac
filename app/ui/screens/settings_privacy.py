"""Settings → privacy: LLM usage against the daily cap, and a scan for stored secrets (by id)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
)

from app.ui.events import DOCUMENTS, MESSAGES

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

MASKING_NOTE = (
    "Before text leaves this computer (LLM prompts, REST and MCP results for agents), API keys, "
    "tokens, passwords, private keys, card numbers, IBANs, e-mail addresses and phone numbers are "
    "replaced by placeholders such as [SECRET:aws-key] or [EMAIL]. Your stored messages are not "
    "changed. Choose the classes under “What leaves this computer”."
)
USAGE_COLUMNS = ("day", "feature", "model", "calls", "capped", "tokens", "cost $")
SCAN_COLUMNS = ("kind", "id", "where", "found", "preview (masked)")


class PrivacySection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("Privacy and LLM usage")
        self.screen = screen
        self.privacy = screen.ctx.service("privacy")
        form = QFormLayout(self)
        note = QLabel(MASKING_NOTE)
        note.setWordWrap(True)
        form.addRow(note)
        self.usage_label = QLabel("LLM usage: …")
        self.usage_label.setWordWrap(True)
        form.addRow("LLM today", self.usage_label)
        self.cap_notice = QLabel()
        self.cap_notice.setWordWrap(True)
        self.cap_notice.setStyleSheet("color:#c77700;")
        self.cap_notice.hide()
        form.addRow(self.cap_notice)
        self.usage_table = _table(USAGE_COLUMNS)
        form.addRow(self.usage_table)
        row = QHBoxLayout()
        self.scan_button = QPushButton("Scan stored messages and documents for secrets")
        self.scan_button.clicked.connect(self.scan)
        row.addWidget(self.scan_button)
        row.addStretch(1)
        form.addRow(row)
        self.scan_label = QLabel()
        self.scan_label.setWordWrap(True)
        form.addRow(self.scan_label)
        self.scan_table = _table(SCAN_COLUMNS)
        self.scan_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.scan_table.hide()
        form.addRow(self.scan_table)
        delete_row = QHBoxLayout()
        self.delete_button = QPushButton("Delete selected record")
        self.delete_button.setToolTip("Deletes the message or document from your memory (audited)")
        self.delete_button.clicked.connect(self.delete_selected)
        self.delete_button.hide()
        delete_row.addWidget(self.delete_button)
        delete_row.addStretch(1)
        form.addRow(delete_row)
        self._items: list[Any] = []
        if self.privacy is None:
            self.setEnabled(False)

    def reload(self) -> None:
        if self.privacy is not None:
            self.screen.query(self.privacy.llm_usage, self.show_usage)

    def show_usage(self, usage: Any) -> None:
        cap = usage.daily_token_cap
        share = f" ({100 * usage.tokens_today / cap:.0f}%)" if cap else ""
        cost_cap = f" of ${usage.daily_cost_cap:.2f}" if usage.daily_cost_cap else ""
        state = "enabled" if usage.enabled else "disabled"
        self.usage_label.setText(
            f"{usage.tokens_today:,} of {cap:,} tokens{share}, ${usage.cost_today:.4f}{cost_cap} "
            f"(LLM {state}, model {html.escape(usage.model)})"
        )
        if usage.cap_reached_today:
            self.cap_notice.setText(
                "The daily LLM cap was reached today: further calls were refused before anything was "
                "sent, and rule-based summaries and insights were used instead. Raise the cap under "
                "“What leaves this computer”, or wait until tomorrow (UTC)."
            )
            self.cap_notice.show()
        else:
            self.cap_notice.hide()
        self.usage_table.setRowCount(len(usage.lines))
        for r, line in enumerate(usage.lines):
            values = (line.day, line.feature, line.model, line.calls, line.capped,
                      line.prompt_tokens + line.completion_tokens, f"{line.cost:.4f}")  # fmt: skip
            for c, value in enumerate(values):
                self.usage_table.setItem(r, c, QTableWidgetItem(str(value)))

    def scan(self) -> None:
        if self.privacy is None:
            return
        self.scan_button.setEnabled(False)
        self.scan_label.setText("Scanning…")
        privacy = self.privacy

        def failed(exc: BaseException) -> None:
            self.scan_button.setEnabled(True)
            self.screen.banner.show_error(exc)

        self.screen.query(lambda: privacy.scan(include_pii=False), self.show_scan, failure=failed)

    def show_scan(self, report: Any) -> None:
        self.scan_button.setEnabled(True)
        self.scan_label.setText(
            f"Scanned {report.scanned_messages:,} messages and {report.scanned_documents:,} documents: "
            f"{len(report.items)} hold secrets. Select one and delete it here, or keep it: "
            "stored text never leaves masked-out parts unless you reveal them."
        )
        self._items = list(report.items)
        self.scan_table.setVisible(bool(report.items))
        self.delete_button.setVisible(bool(report.items))
        self.scan_table.setRowCount(len(report.items))
        for r, item in enumerate(report.items):
            for c, value in enumerate(
                (item.kind, item.id, item.where, ", ".join(item.findings), item.preview)
            ):
                self.scan_table.setItem(r, c, QTableWidgetItem(value))

    def delete_selected(self) -> None:
        rows = sorted({i.row() for i in self.scan_table.selectedIndexes()})
        if not rows or rows[0] >= len(self._items):
            self.screen.banner.show_message("Select a record in the scan results first.", "info")
            return
        item = self._items[rows[0]]
        what = "message" if item.kind == "message" else f"document {item.where}"
        if not self.screen.confirm(
            "Delete record", f"Delete this {what} from your memory? This cannot be undone."
        ):
            return
        if item.kind == "message":
            memory = self.screen.ctx.service("memory")
            op: Any = lambda: memory.delete(int(item.id), actor="ui")  # noqa: E731
            kinds = [MESSAGES]
        else:
            knowledge = self.screen.ctx.service("knowledge")
            op = lambda: knowledge.remove(item.id, actor="ui")  # noqa: E731
            kinds = [DOCUMENTS]

        def done(_: Any) -> None:
            self.screen.banner.show_message(f"Deleted {what} {item.id}.", "ok")
            self.scan()

        self.screen.mutate(op, kinds, done)


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    table.setMinimumHeight(120)
    return table
