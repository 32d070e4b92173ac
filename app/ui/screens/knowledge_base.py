"""Knowledge Base screen: drop many files (per-file progress/errors), list, preview, delete, search."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
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

from app.ui.context import UiContext
from app.ui.events import DOCUMENTS
from app.ui.formatting import human_size, local_time
from app.ui.highlight import highlight_html, query_terms, snippet
from app.ui.models.rows import Column, RowsModel
from app.ui.screens.base import Screen, unavailable
from app.ui.theme import is_dark, term_highlight_colour
from app.ui.uploads import DropZone, UploadsModel, expand
from app.ui.widgets import make_table

LIST_LIMIT = 500


class DocumentsModel(RowsModel[Any]):
    """Rows are the knowledge service's DocumentInfo values."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(
            [
                Column("Document", lambda d: d.file_name),
                Column("Format", lambda d: d.format),
                Column("Size", lambda d: human_size(d.size_bytes), align_right=True),
                Column("Chunks", lambda d: str(d.total_chunks), align_right=True),
                Column("Added", lambda d: local_time(d.uploaded_at)),
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
        self.drop = DropZone("Drop files or folders here (PDF, Word, PowerPoint, Excel, CSV, text, HTML)…")
        self.drop.files_dropped.connect(self.add_paths)
        self.outer.addWidget(self.drop)
        self.uploads = UploadsModel()
        self.upload_view = make_table(self.uploads)
        self.upload_view.setMaximumHeight(140)
        self.upload_view.hide()
        self.outer.addWidget(self.upload_view)

        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search within documents…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.returnPressed.connect(self.search)
        self.outer.addWidget(self.search_edit)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.model = DocumentsModel()
        self.table = make_table(self.model)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _p: self._open_row(cur.row()))
        left_layout.addWidget(self.table, 2)
        self.hits = QListWidget()
        self.hits.itemActivated.connect(self._open_hit)
        self.hits.itemClicked.connect(self._open_hit)
        self.hits.hide()
        left_layout.addWidget(self.hits, 1)
        buttons = QHBoxLayout()
        self.delete_button = QPushButton("Delete document")
        self.delete_button.clicked.connect(self.delete_selected)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        left_layout.addLayout(buttons)
        self.preview = QTextBrowser()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.preview)
        splitter.setSizes([560, 460])
        self.outer.addWidget(splitter, 1)
        self._terms: list[str] = []

    # --- documents ---------------------------------------------------------------------------
    def reload(self) -> None:
        if self.kb is None:
            return
        kb = self.kb
        self.query(lambda: kb.list_documents(LIST_LIMIT, 0), self._show_documents)

    def _show_documents(self, docs: list[Any]) -> None:
        current = self.selected()
        self.model.set_rows(docs)
        for row, doc in enumerate(docs):
            if current is not None and doc.id == current.id:
                self.table.selectRow(row)
        if not docs:
            self.preview.setHtml("<p style='color:gray'>No documents yet: drop some files above.</p>")

    def selected(self) -> Any | None:
        return self.model.row_at(self.table.currentIndex().row())

    def _open_row(self, row: int) -> None:
        doc = self.model.row_at(row)
        if doc is not None:
            self.open_document(doc.id)

    def open_document(self, document_id: str) -> None:
        kb = self.kb
        self.query(lambda: kb.get(document_id), self._show_content)

    def _show_content(self, content: Any) -> None:
        info = content.info
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
        self.mutate(lambda: kb.remove(doc.id), [DOCUMENTS], lambda _: self.preview.clear())

    def confirm(self, title: str, text: str) -> bool:
        return QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

    # --- uploads -----------------------------------------------------------------------------
    def add_paths(self, paths: list[Path]) -> None:
        """Queue dropped files (folders expanded off the GUI thread); uploads run one at a time."""
        self.query(lambda: expand(paths), self._queue_files)

    def _queue_files(self, files: list[tuple[Path, int | None]]) -> None:
        if not files:
            return
        self.upload_view.show()
        self._queue.extend(self.uploads.add_files(files))
        self._next_upload()

    def _next_upload(self) -> None:
        if self._busy or not self._queue:
            return
        self._busy = True
        row = self._queue.pop(0)
        path = self.uploads.rows[row].path
        self.uploads.update(row, state="working")
        kb = self.kb

        def upload(progress: Any) -> Any:
            return kb.add_file(path, progress=lambda stage, done, total: progress(done, total, stage))

        def finished(info: Any) -> None:
            self.uploads.update(row, state="done", message=f"{info.total_chunks} chunks")
            self._busy = False
            self._next_upload()

        def failed(exc: BaseException) -> None:
            self.uploads.update(row, state="failed", message=str(exc))
            self._busy = False
            self._next_upload()

        self.mutate(
            upload,
            [DOCUMENTS],
            finished,
            failure=failed,
            progress=lambda done, total, stage: self.uploads.update(
                row, done=done, total=total, message=stage
            ),
        )

    def uploads_pending(self) -> bool:
        return self._busy or bool(self._queue)

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
