"""First run: what Strata is, and four ways to fill it (demo, an export, a live account, documents).

Shown instead of Search when the data dir holds no messages and no documents. Nothing is loaded
without a click: the demo is offered, never slipped in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.services.demo import load_demo
from app.ui.context import UiContext
from app.ui.events import MESSAGES
from app.ui.icons import icon, icon_img
from app.ui.screens.base import Screen
from app.ui.widgets import muted

EXAMPLE_QUERIES = (
    "when is the launch?",
    "who is fixing the login bug",
    "budget decision",
    "grandma's birthday",
)

# (format, where the user finds the export). Kept in step with docs/importers.md.
# Each format's icon in resources/icons.
EXPORT_ICONS = {
    "Slack": "slack",
    "Discord": "discord",
    "Telegram": "telegram",
    "WhatsApp": "whatsapp",
    "Email": "mail",
    "JSONL": "document",
}
EXPORTS: tuple[tuple[str, str], ...] = (
    ("Slack", "Workspace settings → Import/Export Data → Export (a workspace admin downloads a .zip)"),
    ("Discord", "DiscordChatExporter → export a channel as JSON (one file per channel, or a folder)"),
    ("Telegram", "Telegram Desktop → Settings → Advanced → Export Telegram data → format JSON"),
    ("WhatsApp", "In the chat: ⋮ / contact name → More → Export chat → Without media (.txt or .zip)"),
    ("Email", "An mbox file (Gmail: Google Takeout → Mail), one .eml, or a folder of them"),
    ("JSONL", "One JSON object per line: platform, channel, person, timestamp, content"),
)


class WelcomeScreen(Screen):
    title = "Welcome to Strata"

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.setAcceptDrops(True)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        page = QVBoxLayout(inner)
        page.setContentsMargins(0, 0, 8, 0)
        scroll.setWidget(inner)
        self.outer.addWidget(scroll, 1)
        page.addWidget(
            muted(
                "Strata keeps your chats and documents as a private memory on this computer and finds "
                "things by meaning, not only by exact words. Nothing leaves this machine unless you "
                "connect an online service. Start with one of these:"
            )
        )
        grid = QGridLayout()
        grid.setSpacing(12)
        grid.addWidget(self._demo_card(), 0, 0)
        grid.addWidget(self._documents_card(), 0, 1)
        grid.addWidget(self._import_card(), 1, 0, 1, 2)
        grid.addWidget(self._connector_card(), 2, 0, 1, 2)
        page.addLayout(grid)
        page.addWidget(self._examples())
        skip = QPushButton("Skip — go to Search")
        skip.clicked.connect(lambda: self.go("search"))
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(skip)
        page.addLayout(row)
        page.addStretch(1)

    # --- cards ------------------------------------------------------------------------------
    def _card(self, title: str, text: str) -> tuple[QGroupBox, QVBoxLayout]:
        box = QGroupBox(title)
        layout = QVBoxLayout(box)
        layout.addWidget(muted(text))
        return box, layout

    def _demo_card(self) -> QGroupBox:
        box, layout = self._card(
            "Try it with a demo",
            "24 short messages from a made-up team and family (Slack, Discord, Telegram). They are "
            "stored like real ones; delete them later under Memory or Search.",
        )
        self.demo_button = QPushButton(icon("message"), "Load the demo conversation")
        self.demo_button.setObjectName("load_demo")
        self.demo_button.clicked.connect(self.load_demo)
        layout.addWidget(self.demo_button)
        return box

    def _documents_card(self) -> QGroupBox:
        box, layout = self._card(
            "Add documents",
            "Drop PDF, Word, text or Markdown files anywhere on this page, or choose them. They go to "
            "the Knowledge Base and are searched with your messages.",
        )
        choose = QPushButton(icon("document"), "Choose files…")
        choose.clicked.connect(self.choose_documents)
        layout.addWidget(choose)
        return box

    def _import_card(self) -> QGroupBox:
        box, layout = self._card("Import a chat export", "Where to find each export:")
        table = QGridLayout()
        table.setHorizontalSpacing(14)
        for row, (name, where) in enumerate(EXPORTS):
            label = QLabel(f"{icon_img(EXPORT_ICONS[name])}&nbsp;<b>{name}</b>")
            label.setTextFormat(Qt.TextFormat.RichText)
            table.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop)
            text = QLabel(where)
            text.setWordWrap(True)
            table.addWidget(text, row, 1)
        table.setColumnStretch(1, 1)
        layout.addLayout(table)
        start = QPushButton(icon("archive"), "Import a file…")
        start.setObjectName("start_import")
        start.clicked.connect(self.start_import)
        layout.addWidget(start, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _connector_card(self) -> QGroupBox:
        box, layout = self._card(
            "Connect a live account",
            "Slack, Discord or Telegram with a bot token: new messages arrive as they are written.",
        )
        button = QPushButton(icon("connectors"), "Add a connector…")
        button.clicked.connect(self.add_connector)
        layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _examples(self) -> QGroupBox:
        box, layout = self._card("Then ask in plain words", "For example (after loading the demo):")
        grid = QGridLayout()  # two a row: four in one row would not fit an 800-px window
        self.example_buttons: list[QPushButton] = []
        for index, query in enumerate(EXAMPLE_QUERIES):
            button = QPushButton(icon("search"), f"\u201c{query}\u201d")
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, q=query: self.search(q))
            self.example_buttons.append(button)
            grid.addWidget(button, index // 2, index % 2, Qt.AlignmentFlag.AlignLeft)
        grid.setColumnStretch(2, 1)
        layout.addLayout(grid)
        layout.addWidget(
            muted("Anywhere on your desktop: bind a shortcut to `strata quick` for a search popup.")
        )
        return box

    # --- actions ----------------------------------------------------------------------------
    def go(self, key: str) -> Any:
        return self.ctx.navigate(key) if self.ctx.navigate is not None else None

    def search(self, query: str) -> None:
        screen = self.go("search")
        if screen is not None and hasattr(screen, "focus_query"):
            screen.focus_query(query)

    def load_demo(self) -> None:
        memory = self.ctx.service("memory")
        if memory is None:
            return
        self.demo_button.setEnabled(False)
        self.demo_button.setText("Loading the demo…")

        def load() -> Any:
            return load_demo(memory)

        def done(result: Any) -> None:
            self.demo_button.setText(f"Demo loaded ({result.imported} messages)")
            self.search(EXAMPLE_QUERIES[0])

        def failed(exc: BaseException) -> None:
            self.demo_button.setEnabled(True)
            self.demo_button.setText("Load the demo conversation")
            self.banner.show_error(exc)

        self.mutate(load, [MESSAGES], done, failure=failed)

    def start_import(self) -> None:
        screen = self.go("connectors")
        if screen is not None and hasattr(screen, "open_import_wizard"):
            screen.open_import_wizard()

    def add_connector(self) -> None:
        screen = self.go("connectors")
        if screen is not None and hasattr(screen, "add_dialog"):
            screen.add_dialog()

    def choose_documents(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add documents to the knowledge base")
        if names:
            self.add_documents([Path(n) for n in names])

    def add_documents(self, paths: list[Path]) -> None:
        screen = self.go("knowledge_base")
        if screen is not None and hasattr(screen, "add_paths"):
            screen.add_paths(paths)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.add_documents(paths)
