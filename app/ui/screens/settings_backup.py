"""Settings → Storage: export everything in open formats, or take a backup, into a folder you pick."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen


class BackupRow(QWidget):
    """Two buttons; the work runs in the background and the result shows below them."""

    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__()
        self.screen = screen
        self.exports = screen.ctx.service("exports")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip(
            "Messages (JSONL, archived text included), summaries, insights, documents and settings "
            "without secrets, in open formats"
        )
        self.backup_button = QPushButton("Back up…")
        self.backup_button.setToolTip(
            "A consistent snapshot of the whole data dir; restore with `strata restore`"
        )
        self.export_button.clicked.connect(lambda: self._pick("export"))
        self.backup_button.clicked.connect(lambda: self._pick("backup"))
        row.addWidget(self.export_button)
        row.addWidget(self.backup_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        layout.addWidget(self.state)
        if self.exports is None:
            self.export_button.setEnabled(False)
            self.backup_button.setEnabled(False)

    def _pick(self, kind: str) -> None:
        parent = QFileDialog.getExistingDirectory(self, f"Choose where to put the {kind}")
        if parent:
            self.start(kind, Path(parent) / f"strata-{kind}-{time.strftime('%Y%m%d-%H%M%S')}")

    def start(self, kind: str, target: Path) -> None:
        """Write an export or backup to `target` (a new folder) on a worker thread."""
        exports = self.exports
        op = (lambda: exports.export(target)) if kind == "export" else (lambda: exports.backup(target))
        self.export_button.setEnabled(False)
        self.backup_button.setEnabled(False)
        self.state.setText(f"Writing the {kind} to {target}…")
        self.screen.query(op, lambda report: self._done(kind, report), failure=self._failed)

    def _done(self, kind: str, report: Any) -> None:
        self._enable()
        data = report.to_dict()
        self.state.setText(f"{kind.capitalize()} written to {data['path']} ({data['messages']} messages).")

    def _failed(self, exc: BaseException) -> None:
        self._enable()
        self.state.setText("")
        self.screen.banner.show_error(exc)

    def _enable(self) -> None:
        self.export_button.setEnabled(True)
        self.backup_button.setEnabled(True)
