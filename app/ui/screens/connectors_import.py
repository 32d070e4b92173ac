"""Import wizard: choose an export file → dry-run preview (nothing stored) → import with progress."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.ui.errors import describe
from app.ui.events import MESSAGES
from app.ui.formatting import local_time
from app.ui.ops import MutateOp, QueryOp

if TYPE_CHECKING:
    from app.ui.screens.connectors import ConnectorsScreen

AUTO = "detect automatically"


class ImportWizard(QDialog):
    def __init__(self, screen: ConnectorsScreen) -> None:
        super().__init__(screen)
        self.screen = screen
        self.imports = screen.imports
        self.setWindowTitle("Import an export file")
        self.resize(640, 480)
        self.preview_value: Any = None
        self.report: Any = None
        layout = QVBoxLayout(self)
        self.pages = QStackedWidget()
        layout.addWidget(self.pages, 1)
        self.progress = QProgressBar()
        self.progress.hide()
        layout.addWidget(self.progress)
        buttons = QHBoxLayout()
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Preview (dry run)")
        self.close_button = QPushButton("Close")
        buttons.addWidget(self.back_button)
        buttons.addStretch(1)
        buttons.addWidget(self.next_button)
        buttons.addWidget(self.close_button)
        layout.addLayout(buttons)
        self.back_button.clicked.connect(lambda: self._go(0))
        self.next_button.clicked.connect(self._next)
        self.close_button.clicked.connect(self.close)

        choose = QWidget()
        form = QFormLayout(choose)
        path_row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setPlaceholderText("export .zip, .json, .txt or .mbox")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row.addWidget(self.path, 1)
        path_row.addWidget(browse)
        form.addRow("File", path_row)
        self.format = QComboBox()
        self.format.addItem(AUTO, None)
        for name in getattr(self.imports, "formats", ()):
            self.format.addItem(name, name)
        form.addRow("Format", self.format)
        self.pages.addWidget(choose)
        self.preview_view = QTextBrowser()
        self.pages.addWidget(self.preview_view)
        self.result_view = QTextBrowser()
        self.pages.addWidget(self.result_view)
        self._go(0)

    # --- steps ---------------------------------------------------------------------------------
    def _go(self, page: int) -> None:
        self.pages.setCurrentIndex(page)
        self.back_button.setVisible(page == 1)
        self.next_button.setVisible(page < 2)
        self.next_button.setText("Preview (dry run)" if page == 0 else "Import")
        self.next_button.setEnabled(True)

    def _next(self) -> None:
        if self.pages.currentIndex() == 0:
            self.run_preview()
        else:
            self.run_import()

    def _browse(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Choose an export file")
        if name:
            self.path.setText(name)

    def _busy(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.progress.setRange(0, 0)
        self.next_button.setEnabled(not on)
        self.back_button.setEnabled(not on)

    def _progress(self, done: int, total: int, stage: str) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.progress.setFormat(f"{stage}: {done}" + (f" / {total}" if total else ""))

    def run_preview(self) -> None:
        text = self.path.text().strip()
        if not text:
            self.preview_view.setHtml("<p>Choose a file first.</p>")
            self._go(1)
            self.next_button.setEnabled(False)
            return
        path, fmt, svc = Path(text), self.format.currentData(), self.imports
        self._busy(True)

        def scan(progress: Any) -> Any:
            return svc.preview(fmt, path, None, progress=lambda stage, d, t: progress(d, t, stage))

        QueryOp(parent=self, op=scan, success=self._show_preview).failure(self._failed).with_progress(
            self._progress
        ).run_in_background()

    def _show_preview(self, preview: Any) -> None:
        self._busy(False)
        self.preview_value = preview
        self.preview_view.setHtml(preview_html(preview))
        self._go(1)
        self.next_button.setEnabled(preview.messages > 0)

    def run_import(self) -> None:
        preview, svc = self.preview_value, self.imports
        if preview is None:
            return
        path = Path(self.path.text().strip())
        self._busy(True)

        def store(progress: Any) -> Any:
            return svc.store(preview, path, None, progress=lambda stage, d, t: progress(d, t, stage))

        MutateOp(
            parent=self,
            op=store,
            changes=[MESSAGES],
            events=self.screen.ctx.events,
            success=self._show_result,
        ).failure(self._failed).with_progress(self._progress).run_in_background()

    def _show_result(self, result: Any) -> None:
        self._busy(False)
        self.report = result
        errors = "".join(f"<li>{html.escape(e.reason)}</li>" for e in result.errors[:20])
        self.result_view.setHtml(
            f"<h3>Imported</h3><p><b>{result.imported}</b> new messages, {result.duplicates} already there, "
            f"{result.updated} updated.</p>" + (f"<h4>Not imported</h4><ul>{errors}</ul>" if errors else "")
        )
        self._go(2)

    def _failed(self, exc: BaseException) -> None:
        self._busy(False)
        title, detail = describe(exc)
        view = self.preview_view if self.pages.currentIndex() == 0 else self.result_view
        view.setHtml(f"<h3>{html.escape(title)}</h3><p>{html.escape(detail)}</p><p>Nothing was stored.</p>")
        self._go(1 if view is self.preview_view else 2)
        self.next_button.setEnabled(False)


def preview_html(p: Any) -> str:
    def top(pairs: Any, n: int = 8) -> str:
        return ", ".join(f"{html.escape(str(k))} ({v})" for k, v in list(pairs)[:n]) or "—"

    sample = "".join(
        f"<li><small>{local_time(m.timestamp)} · {html.escape(m.person)} in "
        f"{html.escape(m.channel)}</small><br>"
        f"{html.escape(m.content[:200])}</li>"
        for m in p.sample[:5]
    )
    warnings = "".join(f"<li>{html.escape(w)}</li>" for w in p.warnings[:10])
    skipped = top(p.skipped)
    unreadable = "".join(f"<li>{html.escape(e.reason)}</li>" for e in p.rejected[:20])
    return (
        f"<h3>Dry run: {html.escape(p.source)} ({html.escape(p.format)})</h3>"
        f"<p><b>{p.messages}</b> messages from {local_time(p.first_timestamp)} "
        f"to {local_time(p.last_timestamp)}. "
        "Nothing has been stored yet.</p>"
        f"<p><b>Channels:</b> {top(p.channels)}</p><p><b>People:</b> {top(p.persons)}</p>"
        + (f"<p><b>Skipped:</b> {skipped}</p>" if p.skipped else "")
        + (f"<h4>Entries that could not be read (skipped)</h4><ul>{unreadable}</ul>" if unreadable else "")
        + (f"<h4>Warnings</h4><ul>{warnings}</ul>" if warnings else "")
        + (f"<h4>Sample</h4><ul>{sample}</ul>" if sample else "")
    )
