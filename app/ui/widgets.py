"""Small shared widgets: the status banner, section headers, a chip bar and an empty-state label."""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import QAbstractItemModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableView,
    QToolButton,
    QWidget,
)

from app.ui.errors import describe
from app.ui.formatting import channel_label, humanize, platform_name
from app.ui.icons import icon


class Banner(QLabel):
    """One line under a screen's header: info, success or error (errors described by type)."""

    _STYLES: ClassVar[dict[str, str]] = {
        "info": "background:#e8efff;color:#1b2a55;",
        "ok": "background:#e4f6e8;color:#14451f;",
        "error": "background:#fde7e7;color:#5c1111;",
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()
        self.kind = ""

    def show_message(self, text: str, kind: str = "info", *, rich: bool = False) -> None:
        """Show `text`; plain unless `rich`, because messages quote names and text from user data,
        and a QLabel left on AutoText would render a `<b>` or `<img>` in them as markup."""
        self.kind = kind
        self.setStyleSheet(f"QLabel{{{self._STYLES[kind]}padding:6px 10px;border-radius:6px;}}")
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self.setText(text)
        self.show()

    def show_error(self, exc: BaseException) -> None:
        title, detail = describe(exc)
        self.show_message(f"<b>{html.escape(title)}.</b> {html.escape(detail)}", "error", rich=True)

    def clear_message(self) -> None:
        self.kind = ""
        self.clear()
        self.hide()


def header(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.5)
    font.setBold(True)
    label.setFont(font)
    return label


def muted(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("color: palette(placeholder-text);")
    return label


# Chip keys in words, and the icon each shows (resources/icons).
CHIP_LABELS = {
    "platform": ("From", "message"),
    "channel": ("In", "channel"),
    "person": ("By", "person"),
    "date": ("Date", "calendar"),
    "dates": ("Understood date", "calendar"),
    "people": ("Understood people", "person"),
    "archived": ("Archived messages", "archive"),
}


def chip_text(key: str, value: str) -> str:
    """ "By: dana", "From: WhatsApp", "Archived messages: included"; unknown keys in words."""
    label = CHIP_LABELS.get(key, (humanize(key), ""))[0]
    if key == "platform":
        value = platform_name(value)
    elif key == "channel":
        value = channel_label(None, value)
    return f"{label}: {value}"


class Chip(QToolButton):
    """A removable filter chip ("By: dana ×"); `key`/`value` are what the filter uses."""

    def __init__(self, key: str, value: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key, self.value = key, value
        self.setText(chip_text(key, value))
        self.setIcon(icon("close"))
        self.setLayoutDirection(Qt.LayoutDirection.RightToLeft)  # the × after the text
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setAutoRaise(True)
        self.setStyleSheet("QToolButton{border:1px solid palette(mid);border-radius:10px;padding:2px 8px;}")
        self.setToolTip(
            "Remove this filter" if key not in ("dates", "people") else "Search without this part"
        )


class ChipBar(QWidget):
    """The active filter chips; emits `removed(key, value)` when one is clicked."""

    removed = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_chips(self, chips: list[tuple[str, str]]) -> None:
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        for key, value in chips:
            chip = Chip(key, value, self)
            chip.clicked.connect(lambda _=False, k=key, v=value: self.removed.emit(k, v))
            self._layout.insertWidget(self._layout.count() - 1, chip)

    def chips(self) -> list[tuple[str, str]]:
        out = []
        for i in range(self._layout.count()):
            w = self._layout.itemAt(i).widget()
            if isinstance(w, Chip):
                out.append((w.key, w.value))
        return out


def button(text: str, tooltip: str = "") -> QPushButton:
    b = QPushButton(text)
    if tooltip:
        b.setToolTip(tooltip)
    return b


def make_table(model: QAbstractItemModel) -> QTableView:
    """A read-only, single-row-selection table over one of our row models."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.horizontalHeader().setStretchLastSection(True)
    return view
