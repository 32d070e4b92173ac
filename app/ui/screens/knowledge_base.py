"""Knowledge Base screen: add or drop many files (per-file progress/errors), list, preview,
open the original or show it in its folder, delete, search within documents."""

from __future__ import annotations

import html
import sys
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QProcess, Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import Cancelled
from app.ui.context import UiContext
from app.ui.events import DOCUMENTS
from app.ui.formatting import human_size
from app.ui.highlight import highlight_html, query_terms, snippet
from app.ui.models.rows import Column, RowsModel
from app.ui.screens.base import Screen, unavailable
from app.ui.theme import is_dark, term_highlight_colour
from app.ui.uploads import DropZone, UploadsModel, expand
from app.ui.when import exact, relative
from app.ui.widgets import make_table

LIST_LIMIT = 500
PICK_ONE = "<p style='color:gray'>Select a document to read it here.</p>"
CLEAR_DONE_MS = 4000  # finished uploads leave the queue this long after the last one ends
# One bar for the whole add: reading is quick next to embedding, which is most of the time.
_STAGE_SPAN = {"parse": (0, 15), "embed": (15, 97), "store": (97, 100)}
_STAGE_VERB = {"parse": "reading", "embed": "embedding", "store": "saving"}


def upload_progress(stage: str, done: int, total: int) -> tuple[int, str]:
    """The (percent of the whole add, words) shown for a progress report of the knowledge base."""
    low, high = _STAGE_SPAN.get(stage, (0, 100))
    share = done / total if total > 0 else 0.0
    percent = low + int((high - low) * min(share, 1.0))
    verb = _STAGE_VERB.get(stage, stage)
    if stage == "embed" and total:
        return percent, f"{verb} {done:,} of {total:,} chunks"
    if stage == "parse" and total:
        return percent, f"{verb} {int(100 * share)}%"
    return percent, f"{verb}…"


class DocumentsModel(RowsModel[Any]):
    """Rows are the knowledge service's DocumentInfo values."""

    def __init__(self, now: Any, parent: object = None) -> None:
        super().__init__(
            [
                Column("Document", lambda d: d.file_name),
                Column("Format", lambda d: d.format),
                Column("Size", lambda d: human_size(d.size_bytes), align_right=True),
                Column("Chunks", lambda d: str(d.total_chunks), align_right=True),
                Column(
                    "Added", lambda d: relative(d.uploaded_at, now()), tooltip=lambda d: exact(d.uploaded_at)
                ),
            ],
            parent,
        )


class KnowledgeBaseScreen(Screen):
    title = "Knowledge Base"
    watches = frozenset({DOCUMENTS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.kb = ctx.service("knowledge")
        if self.kb is None:
            unavailable(self, "The knowledge base")
            return
        self._queue: list[int] = []
        self._busy = False
        self._cancel: threading.Event | None = None  # set to stop the upload that is running
        add_row = QHBoxLayout()
        self.add_button = QPushButton("Add files…")
        self.add_button.setToolTip("PDF, Word, PowerPoint, Excel, CSV, text, Markdown, HTML")
        self.add_button.clicked.connect(self.choose_files)
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.drop = DropZone("…or drop files and folders here")
        self.drop.setToolTip("PDF, Word, PowerPoint, Excel, CSV, text, Markdown, HTML; folders: every file")
        self.drop.label.setWordWrap(True)
        self.drop.setMinimumHeight(44)
        self.drop.files_dropped.connect(self.add_paths)
        add_row.addWidget(self.add_button)
        add_row.addWidget(self.add_folder_button)
        add_row.addWidget(self.drop, 1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(
            "Stop adding: the file being read is not stored, waiting files are skipped"
        )
        self.cancel_button.clicked.connect(self.cancel_uploads)
        self.cancel_button.hide()
        add_row.addWidget(self.cancel_button)
        self.outer.addLayout(add_row)
        self.uploads = UploadsModel()
        self.upload_view = make_table(self.uploads)
        self.upload_view.setMaximumHeight(140)
        self.upload_view.hide()
        self.outer.addWidget(self.upload_view)
        self.clear_timer = QTimer(self)
        self.clear_timer.setSingleShot(True)
        self.clear_timer.setInterval(CLEAR_DONE_MS)
        self.clear_timer.timeout.connect(self.clear_finished)

        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search within documents…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.returnPressed.connect(self.search)
        self.outer.addWidget(self.search_edit)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.model = DocumentsModel(ctx.clock.now_ms)
        self.table = make_table(self.model)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the name gets the width
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _p: self._open_row(cur.row()))
        left_layout.addWidget(self.table, 2)
        self.hits = QListWidget()
        self.hits.itemActivated.connect(self._open_hit)
        self.hits.itemClicked.connect(self._open_hit)
        self.hits.hide()
        left_layout.addWidget(self.hits, 1)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open original")
        self.open_button.setToolTip("Open Strata's stored copy of the file in its usual app")
        self.open_button.clicked.connect(self.open_original)
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.clicked.connect(self.show_in_folder)
        self.delete_button = QPushButton("Delete document")
        self.delete_button.clicked.connect(self.delete_selected)
        for b in (self.open_button, self.folder_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        left_layout.addLayout(buttons)
        self.preview = QTextBrowser()
        self.preview.setHtml(PICK_ONE)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.preview)
        splitter.setSizes([560, 460])
        self.outer.addWidget(splitter, 1)
        self._terms: list[str] = []
        self._open_id: str | None = None  # the document in the viewer; reloads never change it
        self._update_buttons()

    # --- documents ---------------------------------------------------------------------------
    def reload(self) -> None:
        if self.kb is None:
            return
        kb = self.kb
        self.query(lambda: kb.list_documents(LIST_LIMIT, 0), self._show_documents)

    def _show_documents(self, docs: list[Any]) -> None:
        # A reload (an upload finished) re-selects the open document without re-opening anything:
        # the reset must not make Qt's "current row" open whichever document landed on that row.
        selection = self.table.selectionModel()
        selection.blockSignals(True)
        try:
            self.model.set_rows(docs)
            row = next((i for i, d in enumerate(docs) if d.id == self._open_id), None)
            if row is not None:
                self.table.selectRow(row)
        finally:
            selection.blockSignals(False)
        if row is None and self._open_id is not None:
            self._open_id = None  # it was deleted (here or elsewhere)
            self.preview.setHtml(PICK_ONE)
        self._update_buttons()
        if not docs:
            self.preview.setHtml("<p style='color:gray'>No documents yet: press Add files… or drop some.</p>")

    def selected(self) -> Any | None:
        return next((d for d in self.model.rows if d.id == self._open_id), None)

    def _open_row(self, row: int) -> None:
        doc = self.model.row_at(row)
        if doc is not None:
            self.open_document(doc.id)

    def open_document(self, document_id: str) -> None:
        kb = self.kb
        self._open_id = document_id
        self._update_buttons()
        self.query(lambda: kb.get(document_id), self._show_content)

    def _update_buttons(self) -> None:
        on = self.selected() is not None
        for b in (self.open_button, self.folder_button, self.delete_button):
            b.setEnabled(on)

    def original_path(self, doc: Any) -> Path:
        """Strata keeps its own copy of every added file in the data folder; this is its path."""
        return Path(self.ctx.services.settings.data_dir) / doc.blob_path

    def open_original(self) -> None:
        doc = self.selected()
        if doc is not None:
            self._open_url(QUrl.fromLocalFile(str(self.original_path(doc))), doc)

    def show_in_folder(self) -> None:
        doc = self.selected()
        if doc is None:
            return
        path = self.original_path(doc)
        # Selecting the file needs the platform's file manager; elsewhere open its folder.
        if sys.platform == "darwin" and QProcess.startDetached("open", ["-R", str(path)]):
            return
        if sys.platform == "win32" and QProcess.startDetached("explorer", [f"/select,{path}"]):
            return
        self._open_url(QUrl.fromLocalFile(str(path.parent)), doc)

    def _open_url(self, url: QUrl, doc: Any) -> None:
        if not QDesktopServices.openUrl(url):
            self.banner.show_message(
                f"No app could open {doc.file_name}. Its stored copy is {url.toLocalFile()}.", "error"
            )

    def _show_content(self, content: Any) -> None:
        info = content.info
        if info.id != self._open_id:
            return  # another document was opened meanwhile
        colour = term_highlight_colour(is_dark())
        body = highlight_html(content.content, self._terms, colour).replace("\n", "<br>")
        meta = f"{html.escape(info.format)} · {human_size(info.size_bytes)} · {info.total_chunks} chunks"
        self.preview.setHtml(
            f"<h3>{html.escape(info.file_name)}</h3><p><small>{meta}</small></p><p>{body}</p>"
        )

    def delete_selected(self) -> None:
        doc = self.selected()
        if doc is None:
            return
        if not self.confirm("Delete document", f"Remove {doc.file_name} from the knowledge base?"):
            return
        kb = self.kb
        self.mutate(lambda: kb.remove(doc.id), [DOCUMENTS])

    def confirm(self, title: str, text: str) -> bool:
        return QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

    # --- uploads -----------------------------------------------------------------------------
    def choose_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add files to the knowledge base")
        if names:
            self.add_paths([Path(n) for n in names])

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to the knowledge base")
        if folder:
            self.add_paths([Path(folder)])

    def add_paths(self, paths: list[Path]) -> None:
        """Queue dropped files (folders expanded off the GUI thread); uploads run one at a time."""
        self.query(lambda: expand(paths), self._queue_files)

    def _queue_files(self, files: list[tuple[Path, int | None]]) -> None:
        if not files:
            return
        self.clear_timer.stop()
        self.upload_view.show()
        self._queue.extend(self.uploads.add_files(files))
        self._next_upload()

    def _next_upload(self) -> None:
        if self._busy:
            return
        if not self._queue:
            self.cancel_button.hide()
            self.clear_timer.start()  # all done: finished rows leave soon, failures stay to be read
            return
        self._busy = True
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        row = self._queue.pop(0)
        path = self.uploads.rows[row].path
        self.uploads.update(row, state="working", message="reading…")
        kb = self.kb
        cancel = self._cancel = threading.Event()

        def upload(progress: Any) -> Any:
            # The knowledge base checks `cancel` between sections and embedding batches, on this
            # worker thread; the GUI thread only sets it.
            return kb.add_file(
                path, progress=lambda stage, done, total: progress(done, total, stage), cancel=cancel
            )

        def finished(info: Any) -> None:
            self.uploads.update(row, state="done", message=f"{info.total_chunks} chunks")
            self._upload_ended()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, Cancelled):
                self.uploads.update(row, state="cancelled", message="stopped; nothing was stored")
            else:
                self.uploads.update(row, state="failed", message=str(exc))
            self._upload_ended()

        def progressed(done: int, total: int, stage: str) -> None:
            if cancel.is_set():
                return  # a late report must not overwrite "cancelling…"
            percent, words = upload_progress(stage, done, total)
            self.uploads.update(row, done=percent, total=100, message=words)

        self.mutate(upload, [DOCUMENTS], finished, failure=failed, progress=progressed)

    def _upload_ended(self) -> None:
        self._busy = False
        self._cancel = None
        self._next_upload()

    def cancel_uploads(self) -> None:
        """Stop the running upload (it stores nothing) and skip the files still waiting."""
        for row in self._queue:
            self.uploads.update(row, state="cancelled", message="skipped")
        self._queue.clear()
        if self._cancel is not None:
            self._cancel.set()
            running = next((i for i, r in enumerate(self.uploads.rows) if r.state == "working"), None)
            if running is not None:
                self.uploads.update(running, message="cancelling…")
            self.cancel_button.setEnabled(False)  # until the worker notices, between two batches

    def uploads_pending(self) -> bool:
        return self._busy or bool(self._queue)

    def clear_finished(self) -> None:
        """Drop the rows of files that were added; failed ones stay until the next batch ends."""
        if self.uploads_pending():
            return
        self.uploads.set_rows([r for r in self.uploads.rows if r.state == "failed"])
        self.upload_view.setVisible(bool(self.uploads.rows))

    # --- search within documents ---------------------------------------------------------------
    def search(self) -> None:
        text = self.search_edit.text().strip()
        self._terms = query_terms(text)
        if not text:
            self.hits.clear()
            self.hits.hide()
            return
        kb = self.kb
        self.query(lambda: kb.search(text, 20), self._show_hits)

    def _show_hits(self, hits: list[Any]) -> None:
        self.hits.clear()
        self.hits.show()
        if not hits:
            self.hits.addItem("No passages match.")
            return
        for hit in hits:
            where = ", ".join(f"{k} {v}" for k, v in hit.location.items() if k != "chars")
            label = (
                f"{hit.file_name}{f' ({where})' if where else ''}: {snippet(hit.content, self._terms, 140)}"
            )
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, hit.document_id)
            self.hits.addItem(item)

    def _open_hit(self, item: QListWidgetItem) -> None:
        document_id = item.data(Qt.ItemDataRole.UserRole)
        if document_id:
            self.open_document(document_id)
