"""Import wizard: choose an export file → dry-run preview (nothing stored) → import with progress,
a time estimate and Cancel → result. Enter never closes it; the heading always says which step runs."""

from __future__ import annotations

import html
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import StrataError
from app.services.jsonl_import import FORMAT as JSONL
from app.services.jsonl_import import is_jsonl
from app.ui.errors import describe
from app.ui.events import MESSAGES
from app.ui.ops import MutateOp, QueryOp
from app.ui.when import local_time

if TYPE_CHECKING:
    from app.ui.screens.connectors import ConnectorsScreen

AUTO = "detect automatically"
CHOOSE, PREVIEW, WORKING, RESULT = range(4)
FORMAT_TITLES = {
    "slack": "Slack export (.zip)",
    "discord": "Discord export (DiscordChatExporter .json)",
    "telegram": "Telegram Desktop export (result.json)",
    "whatsapp": "WhatsApp chat (.txt or .zip)",
    "email": "E-mail (.mbox)",
    JSONL: "Strata JSONL (one message per line)",
}
WHERE_HELP = (
    "<small><b>Slack</b>: workspace settings → Import/Export data → Export. "
    "<b>Discord</b>: DiscordChatExporter, JSON format. "
    "<b>Telegram</b>: Telegram Desktop → Settings → Advanced → Export chat history, JSON. "
    "<b>WhatsApp</b>: a chat → ⋮ → More → Export chat. "
    "<b>E-mail</b>: an .mbox file (Gmail: Google Takeout). "
    "<b>JSONL</b>: what <code>strata export</code> writes.</small>"
)


class ImportCancelled(StrataError):
    """The user pressed Cancel during an import."""


class ImportWizard(QDialog):
    def __init__(self, screen: ConnectorsScreen) -> None:
        super().__init__(screen)
        self.screen = screen
        self.imports = screen.imports
        self.setWindowTitle("Import an export file")
        self.resize(680, 500)
        self.setMinimumWidth(520)
        self.preview_value: Any = None
        self.report: Any = None
        self.cancelled = False
        self._cancel = threading.Event()
        self._started = 0.0
        layout = QVBoxLayout(self)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.heading.setFont(font)
        layout.addWidget(self.heading)
        self.pages = QStackedWidget()
        layout.addWidget(self.pages, 1)
        self.progress = QProgressBar()
        self.progress.hide()
        layout.addWidget(self.progress)
        self.eta = QLabel()
        self.eta.hide()
        layout.addWidget(self.eta)
        buttons = QHBoxLayout()
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Preview (dry run)")
        self.cancel_button = QPushButton("Cancel import")
        self.close_button = QPushButton("Close")
        buttons.addWidget(self.back_button)
        buttons.addStretch(1)
        for b in (self.back_button, self.next_button, self.cancel_button, self.close_button):
            # No default button: Enter in the path box must not close the wizard or start an import.
            b.setAutoDefault(False)
            b.setDefault(False)
            if b is not self.back_button:
                buttons.addWidget(b)
        layout.addLayout(buttons)
        self.back_button.clicked.connect(lambda: self._go(CHOOSE))
        self.next_button.clicked.connect(self._next)
        self.cancel_button.clicked.connect(self.cancel_import)
        self.close_button.clicked.connect(self.close)

        choose = QWidget()
        form = QFormLayout(choose)
        path_row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setPlaceholderText("export .zip, .json, .txt, .mbox or .jsonl")
        self.path.returnPressed.connect(self.run_preview)  # Enter previews; it stores nothing
        browse = QPushButton("Browse…")
        browse.setAutoDefault(False)
        browse.clicked.connect(self._browse)
        path_row.addWidget(self.path, 1)
        path_row.addWidget(browse)
        form.addRow("File", path_row)
        self.format = QComboBox()
        self.format.addItem(AUTO, None)
        for name in (*getattr(self.imports, "formats", ()), JSONL):
            self.format.addItem(FORMAT_TITLES.get(name, name), name)
        form.addRow("Format", self.format)
        where = QLabel(WHERE_HELP)
        where.setWordWrap(True)
        form.addRow("", where)
        self.pages.addWidget(choose)
        self.preview_view = QTextBrowser()
        self.pages.addWidget(self.preview_view)
        self.working_view = QTextBrowser()
        self.pages.addWidget(self.working_view)
        self.result_view = QTextBrowser()
        self.pages.addWidget(self.result_view)
        self._go(CHOOSE)

    # --- steps ---------------------------------------------------------------------------------
    def _go(self, page: int, heading: str | None = None) -> None:
        self.pages.setCurrentIndex(page)
        self.back_button.setVisible(page in (PREVIEW, RESULT))
        self.next_button.setVisible(page in (CHOOSE, PREVIEW))
        self.cancel_button.setVisible(page == WORKING)
        self.close_button.setVisible(page != WORKING)
        self.next_button.setEnabled(True)
        if page == PREVIEW and self.preview_value is not None:
            self.next_button.setText(f"Import {self.preview_value.messages:,} messages")
        else:
            self.next_button.setText("Preview (dry run)")
        default = {
            CHOOSE: "Step 1 of 3: choose an export file",
            PREVIEW: "Step 2 of 3: dry run. Nothing has been stored yet",
            WORKING: "Step 3 of 3: importing. Messages are being stored",
            RESULT: "Import finished",
        }
        self.heading.setText(heading or default[page])

    def _next(self) -> None:
        if self.pages.currentIndex() == CHOOSE:
            self.run_preview()
        else:
            self.run_import()

    def _browse(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self,
            "Choose an export file",
            "",
            "Exports (*.zip *.json *.txt *.mbox *.jsonl *.ndjson);;All files (*)",
        )
        if name:
            self.path.setText(name)

    def _busy(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.eta.setVisible(on)
        self.progress.setRange(0, 0)
        self.progress.resetFormat()
        self.eta.clear()
        self.next_button.setEnabled(not on)
        self.back_button.setEnabled(not on)

    def _progress(self, done: int, total: int, stage: str) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        verb = "Reading" if stage == "scan" else "Storing"
        self.progress.setFormat(f"{verb}: {done:,}" + (f" / {total:,}" if total else ""))
        self.eta.setText(estimate(done, total, time.monotonic() - self._started))

    def _format(self, path: Path) -> str | None:
        chosen = self.format.currentData()
        return JSONL if chosen is None and is_jsonl(path) else chosen

    def run_preview(self) -> None:
        text = self.path.text().strip()
        if not text:
            self.heading.setText("Step 1 of 3: choose an export file first (Browse…)")
            return
        path, svc = Path(text), self.imports
        fmt = self._format(path)
        self._busy(True)
        self._started = time.monotonic()

        def scan(progress: Any) -> Any:
            report = lambda stage, d, t: progress(d, t, stage)  # noqa: E731
            return svc.preview(fmt, path, None, progress=report)

        self.heading.setText("Step 2 of 3: dry run. Reading the file, nothing is stored")
        QueryOp(parent=self, op=scan, success=self._show_preview).failure(self._failed).with_progress(
            self._progress
        ).run_in_background()

    def _show_preview(self, preview: Any) -> None:
        self._busy(False)
        self.preview_value = preview
        self.preview_view.setHtml(preview_html(preview))
        self._go(PREVIEW)
        self.next_button.setEnabled(preview.messages > 0)

    def run_import(self) -> None:
        preview, svc = self.preview_value, self.imports
        if preview is None:
            return
        path = Path(self.path.text().strip())
        self._cancel.clear()
        self.cancelled = False
        self._started = time.monotonic()
        self._go(WORKING, f"Step 3 of 3: importing {preview.source}. Messages are being stored")
        self.working_view.setHtml(
            f"<p>Storing {preview.messages:,} messages from {html.escape(preview.source)}.</p>"
            "<p>You can cancel: what is stored stays, and importing the same file again continues "
            "(messages already stored are skipped).</p>"
        )
        self._busy(True)
        cancel = self._cancel

        def store(progress: Any) -> Any:
            def report(stage: str, done: int, total: int | None) -> None:
                if cancel.is_set():
                    raise ImportCancelled(f"import cancelled after {done:,} messages")
                progress(done, total, stage)

            return svc.store(preview, path, None, progress=report)

        MutateOp(
            parent=self,
            op=store,
            changes=[MESSAGES],
            events=self.screen.ctx.events,
            success=self._show_result,
        ).failure(self._failed).with_progress(self._progress).run_in_background()

    def cancel_import(self) -> None:
        self._cancel.set()
        self.cancel_button.setEnabled(False)
        self.eta.setText("Stopping after the current batch…")

    def _show_result(self, result: Any) -> None:
        self._busy(False)
        self.report = result
        errors = "".join(f"<li>{html.escape(e.reason)}</li>" for e in result.errors[:20])
        self.result_view.setHtml(
            f"<p><b>{result.imported:,}</b> new messages, {result.duplicates:,} already there, "
            f"{result.updated:,} updated.</p>" + (f"<h4>Not imported</h4><ul>{errors}</ul>" if errors else "")
        )
        self._go(RESULT, "Import finished: the messages are in your memory")

    def _failed(self, exc: BaseException) -> None:
        stage = self.pages.currentIndex()
        self._busy(False)
        self.cancel_button.setEnabled(True)
        if isinstance(exc, ImportCancelled):
            self.cancelled = True
            self.result_view.setHtml(
                f"<p>You cancelled the import ({html.escape(str(exc))}). The messages stored so far "
                "stay; import the same file again to finish (stored messages are skipped).</p>"
            )
            self._go(RESULT, "Import cancelled")
            return
        title, detail = describe(exc)
        stored = "Some messages may have been stored; importing again finishes the job."
        where = "Nothing was stored." if stage != WORKING else stored
        view = self.preview_view if stage != WORKING else self.result_view
        view.setHtml(f"<h3>{html.escape(title)}</h3><p>{html.escape(detail)}</p><p>{where}</p>")
        if stage != WORKING:
            self._go(PREVIEW, "The file could not be read. Nothing has been stored")
        else:
            self._go(RESULT, "The import stopped with an error")
        self.next_button.setEnabled(False)

    def closeEvent(self, event: QCloseEvent) -> None:
        # Closing mid-import would drop the result: stop the import first, then close.
        if self.pages.currentIndex() == WORKING:
            self.cancel_import()
            event.ignore()
            return
        super().closeEvent(event)


def estimate(done: int, total: int, elapsed: float) -> str:
    """ "about 2 min left" from the rate so far; nothing until there is a rate to go by."""
    if not total or done <= 0 or elapsed < 1.0 or done >= total:
        return ""
    left = (total - done) * elapsed / done
    if left < 60:
        return f"about {max(5, round(left / 5) * 5)} s left"
    return f"about {round(left / 60)} min left"


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
        f"<h3>{html.escape(p.source)} ({html.escape(FORMAT_TITLES.get(p.format, p.format))})</h3>"
        f"<p><b>{p.messages}</b> messages from {local_time(p.first_timestamp)} "
        f"to {local_time(p.last_timestamp)}.</p>"
        f"<p><b>Channels:</b> {top(p.channels)}</p><p><b>People:</b> {top(p.persons)}</p>"
        + (f"<p><b>Skipped:</b> {skipped}</p>" if p.skipped else "")
        + (f"<h4>Entries that could not be read (skipped)</h4><ul>{unreadable}</ul>" if unreadable else "")
        + (f"<h4>Warnings</h4><ul>{warnings}</ul>" if warnings else "")
        + (f"<h4>Sample</h4><ul>{sample}</ul>" if sample else "")
    )
