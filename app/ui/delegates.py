"""An item delegate that paints the model's HtmlRole (highlighted terms, badges) as rich text.

Rows word-wrap to the column's width and stop at `max_lines` lines, so one long message
cannot push the rest of the results off screen.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.ui.models.rows import MUTED, HtmlRole


def muted_colour(palette: QPalette, selected: bool) -> QColor:
    """Secondary text: grey on a plain row; on the selection, its text colour moved slightly
    towards the selection's own colour, so it reads as secondary and stays legible (grey on
    the accent blue is ~1.1:1)."""
    if not selected:
        return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText)
    text = palette.color(QPalette.ColorRole.HighlightedText).getRgb()[:3]
    back = palette.color(QPalette.ColorRole.Highlight).getRgb()[:3]
    return QColor(*(round(t * 0.85 + b * 0.15) for t, b in zip(text, back, strict=True)))


class HtmlDelegate(QStyledItemDelegate):
    def __init__(self, parent: QObject | None = None, max_lines: int = 4) -> None:
        super().__init__(parent)
        self.max_lines = max_lines

    def _doc(self, option: QStyleOptionViewItem, html: str, *, selected: bool = False) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDefaultStyleSheet(f".{MUTED} {{ color: {muted_colour(option.palette, selected).name()}; }}")
        doc.setHtml(html)
        doc.setTextWidth(option.rect.width())
        return doc

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        html = index.data(HtmlRole)
        if not html:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        doc = self._doc(option, html, selected=selected)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        painter.save()
        painter.translate(option.rect.topLeft())
        painter.setClipRect(QRectF(0, 0, option.rect.width(), option.rect.height()))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        html = index.data(HtmlRole)
        if not html:
            return super().sizeHint(option, index)
        doc = self._doc(option, html)
        # Size for the column's real width (option.rect is not set when views ask for hints).
        view = option.widget
        width = view.columnWidth(index.column()) if hasattr(view, "columnWidth") else 0
        doc.setTextWidth(max(width, 120))
        cap = QFontMetrics(option.font).lineSpacing() * self.max_lines + 8
        return QSize(int(doc.idealWidth()), int(min(doc.size().height() + 4, cap)))
