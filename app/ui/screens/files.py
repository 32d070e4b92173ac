"""Files screen: the memory folder as a tree, pages rendered with working links, edit in place, search."""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.context import UiContext
from app.ui.events import FILES
from app.ui.screens.base import Screen, unavailable
from app.ui.widgets import button, muted

PATH_ROLE = Qt.ItemDataRole.UserRole
FOLDER_ORDER = ("people", "chats", "channels", "projects", "notes", "strategy")
_WIKI = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")
_FENCE = re.compile(r"^<!-- strata:(begin|end) generated.*-->\s*$", re.MULTILINE)


def to_markdown(text: str) -> str:
    """What Qt's markdown renders: wiki links become `memory:` links, front matter and fences go."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            text = text[end + 4 :].lstrip("\n")
    text = _FENCE.sub("", text)
    return _WIKI.sub(lambda m: f"[{m.group(2) or m.group(1)}](memory:{m.group(1).strip()}.md)", text)


class FilesScreen(Screen):
    title = "Files"
    watches = frozenset({FILES})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.files = ctx.service("files")
        self.memory = ctx.service("memory")
        if self.files is None:
            unavailable(self, "Memory files")
            return
        self.current: Any = None  # the MemoryFile shown

        top = QHBoxLayout()
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search memory files…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.returnPressed.connect(self.search)
        self.search_edit.textChanged.connect(lambda t: None if t else self.reload())
        self.refresh_button = button("Refresh pages", "Regenerate people, chat, channel and project pages")
        self.refresh_button.clicked.connect(self.regenerate)
        top.addWidget(self.search_edit, 1)
        top.addWidget(self.refresh_button)
        self.outer.addLayout(top)

        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.itemSelectionChanged.connect(self._selected)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.path_label = muted("")
        self.edit_button = button("Edit", "Edit this file; text outside the generated block is yours")
        self.save_button = button("Save")
        self.cancel_button = button("Cancel")
        self.edit_button.clicked.connect(self.start_edit)
        self.save_button.clicked.connect(self.save)
        self.cancel_button.clicked.connect(self.cancel_edit)
        bar.addWidget(self.path_label, 1)
        for b in (self.edit_button, self.save_button, self.cancel_button):
            bar.addWidget(b)
        right_layout.addLayout(bar)
        self.pages = QStackedWidget()
        self.viewer = QTextBrowser()
        self.viewer.setOpenLinks(False)  # we follow links ourselves: memory: pages, strata: messages
        self.viewer.anchorClicked.connect(self.follow)
        self.editor = QPlainTextEdit()
        self.pages.addWidget(self.viewer)
        self.pages.addWidget(self.editor)
        right_layout.addWidget(self.pages, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.tree)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        self.outer.addWidget(split, 1)
        self._editing(False)

    # -- loading -------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.files is None:
            return
        files = self.files
        self.query(files.list_files, self._show_tree)

    def _show_tree(self, listed: list[dict[str, Any]]) -> None:
        keep = self.current.path if self.current is not None else None
        self.tree.clear()
        folders: dict[str, QTreeWidgetItem] = {}
        for name in FOLDER_ORDER:
            node = QTreeWidgetItem([name])
            node.setFlags(node.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            folders[name] = node
            self.tree.addTopLevelItem(node)
        for f in listed:
            item = QTreeWidgetItem([f["title"]])
            item.setToolTip(0, f["path"])
            item.setData(0, PATH_ROLE, f["path"])
            folders.get(f["folder"], folders["notes"]).addChild(item)
            if f["path"] == keep:
                self.tree.setCurrentItem(item)
        for name, node in folders.items():
            node.setText(0, f"{name} ({node.childCount()})")
            node.setExpanded(node.childCount() > 0)
        if not listed:
            self.viewer.setMarkdown("No memory files yet. Press **Refresh pages** to generate them.")

    def _selected(self) -> None:
        items = self.tree.selectedItems()
        path = items[0].data(0, PATH_ROLE) if items else None
        if path:
            self.open(path)

    def open(self, path: str) -> None:
        files = self.files
        self.query(lambda: files.read(path), self._show_file)

    def _show_file(self, found: Any) -> None:
        self.current = found
        self._editing(False)
        self.path_label.setText(found.path + ("  · yours (user_owned)" if found.user_owned else ""))
        self.viewer.setMarkdown(to_markdown(found.text))

    # -- links ---------------------------------------------------------------------------------
    def follow(self, url: QUrl) -> None:
        scheme = url.scheme()
        if scheme == "memory" and url.path() == "back":
            if self.current is not None:
                self._show_file(self.current)
        elif scheme == "memory":
            self.open(url.path() or url.toString().removeprefix("memory:"))
        elif scheme == "strata" and url.host() == "message":
            self.show_message(url.path().strip("/"))
        else:
            self.banner.show_message(f"links to {scheme or 'this kind of'} addresses open outside Strata")

    def show_message(self, raw_id: str) -> None:
        if not raw_id.isdigit() or self.memory is None:
            return
        memory = self.memory
        self.query(lambda: memory.context(int(raw_id), before=3, after=3), self._show_context)

    def _show_context(self, found: Any) -> None:
        rows = sorted((*found.neighbours, found.record), key=lambda r: (r.timestamp, r.id))
        parts = [f"<h3>{html.escape(found.record.platform)} · {html.escape(found.record.channel)}</h3>"]
        for r in rows:
            text = html.escape(r.content if r.content is not None else "(archived; see its summary)")
            line = f"<b>{html.escape(r.person)}</b>: {text}"
            parts.append(f"<p>{'<u>' + line + '</u>' if r.id == found.record.id else line}</p>")
        parts.append('<p><a href="memory:back">← back to the page</a></p>')
        self.viewer.setHtml("".join(parts))

    # -- editing -------------------------------------------------------------------------------
    def _editing(self, on: bool) -> None:
        self.pages.setCurrentWidget(self.editor if on else self.viewer)
        self.edit_button.setVisible(not on and self.current is not None)
        self.save_button.setVisible(on)
        self.cancel_button.setVisible(on)

    def start_edit(self) -> None:
        if self.current is None:
            return
        self.editor.setPlainText(self.current.text)
        self._editing(True)
        self.editor.setFocus()

    def cancel_edit(self) -> None:
        self._editing(False)

    def save(self) -> None:
        if self.current is None:
            return
        files, path, version = self.files, self.current.path, self.current.version
        text = self.editor.toPlainText()
        self.mutate(lambda: files.write(path, text, expected_version=version), [FILES], self._saved)

    def _saved(self, written: Any) -> None:
        self.banner.show_message(f"saved {written.path}")
        self._show_file(written)

    # -- search and regeneration -------------------------------------------------------------
    def search(self) -> None:
        text = self.search_edit.text().strip()
        if not text:
            self.reload()
            return
        files = self.files
        self.query(lambda: files.search(text, limit=100), self._show_hits)

    def _show_hits(self, hits: list[Any]) -> None:
        self.tree.clear()
        node = QTreeWidgetItem([f"results ({len(hits)})"])
        self.tree.addTopLevelItem(node)
        for hit in hits:
            item = QTreeWidgetItem([hit.title])
            item.setToolTip(0, "\n".join(f"{n}: {t}" for n, t in hit.snippets) or hit.path)
            item.setData(0, PATH_ROLE, hit.path)
            node.addChild(item)
        node.setExpanded(True)

    def regenerate(self) -> None:
        files = self.files
        self.refresh_button.setEnabled(False)

        def done(report: Any) -> None:
            self.refresh_button.setEnabled(True)
            self.banner.show_message(f"{report.pages} pages: {len(report.changed)} changed")

        def failed(exc: BaseException) -> None:
            self.refresh_button.setEnabled(True)
            self.banner.show_error(exc)

        self.mutate(files.refresh, [FILES], done, failure=failed)
