"""The page shown while the services open: a live search box in place of the Search screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from app.ui.widgets import header, muted

QUERY_PLACEHOLDER = "Search messages, summaries and documents   (Ctrl+K)"


class LoadingPage(QWidget):
    """Stands in for Search until the data dir is open (LanceDB, migrations, the model: seconds).

    Only Qt and light `app.ui` modules are behind it, so the window is on screen and answers the
    keyboard at once. The query box takes focus and text right away; the main window hands what
    was typed (and the cursor) to the real Search screen, which runs it, when the services arrive.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(18, 14, 18, 14)  # as Screen, so nothing jumps when Search replaces it
        outer.addWidget(header("Search"))
        self.query_edit = QLineEdit()
        self.query_edit.setObjectName("pending_query")
        self.query_edit.setPlaceholderText(QUERY_PLACEHOLDER)
        self.query_edit.setClearButtonEnabled(True)
        outer.addWidget(self.query_edit)
        self.status = muted("Opening your memory…")
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.status, 1)

    def focus_query(self, text: str | None = None) -> None:
        if text is not None:
            self.query_edit.setText(text)
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def show_failure(self, text: str) -> None:
        """The services could not open: say why where the results would be."""
        self.status.setText(text)
        self.status.setStyleSheet("")  # an error is not a muted hint
