"""A drop zone for files and the per-file upload list (name, size, progress, result or error)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QLabel, QVBoxLayout, QWidget

from app.ui.formatting import human_size
from app.ui.models.rows import Column, RowsModel


@dataclass(frozen=True, slots=True)
class UploadRow:
    """One file's upload: `state` is queued, working, done or failed."""

    path: Path
    size: int | None
    state: str = "queued"
    done: int = 0
    total: int = 0
    message: str = ""

    @property
    def percent(self) -> int:
        if self.state == "done":
            return 100
        return int(100 * self.done / self.total) if self.total else 0


def _status(row: UploadRow) -> str:
    if row.state == "working":
        return f"{row.percent}%"
    return {"queued": "waiting", "done": "✓ added", "failed": "✗ failed"}.get(row.state, row.state)


class UploadsModel(RowsModel[UploadRow]):
    def __init__(self, parent: object = None) -> None:
        super().__init__(
            [
                Column("File", lambda r: r.path.name, tooltip=lambda r: str(r.path)),
                Column("Size", lambda r: human_size(r.size), align_right=True),
                Column("Status", _status),
                Column("Details", lambda r: r.message, tooltip=lambda r: r.message),
            ],
            parent,
        )

    def add_files(self, files: list[tuple[Path, int | None]]) -> list[int]:
        """Queue (path, size) pairs from `expand`; returns their row numbers."""
        first = len(self.rows)
        new = [UploadRow(p, size) for p, size in files]
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        self.rows.extend(new)
        self.endInsertRows()
        return list(range(first, first + len(new)))

    def update(self, row: int, **changes: object) -> None:
        self.replace_row(row, replace(self.rows[row], **changes))  # type: ignore[arg-type]


class DropZone(QWidget):
    """Accepts files dropped from the desktop (or picked with a dialog) and emits their paths."""

    files_dropped = Signal(list)

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setObjectName("dropzone")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # let the dashed border paint
        self.setMinimumHeight(70)
        self.setStyleSheet("#dropzone{border:2px dashed palette(mid);border-radius:10px;}")
        layout = QVBoxLayout(self)
        self.label = QLabel(text)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.label)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        # Folders are expanded by the receiver in a background op (`expand`): no disk walk here.
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.files_dropped.emit(paths)
            event.acceptProposedAction()

    def mouseReleaseEvent(self, event: object) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Choose files")
        if names:
            self.files_dropped.emit([Path(n) for n in names])


def expand(paths: list[Path]) -> list[tuple[Path, int | None]]:
    """Files with sizes; dropped folders contribute all their (non-hidden) files. Touches disk."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")))
        else:
            files.append(p)
    return [(f, f.stat().st_size if f.exists() else None) for f in files]
