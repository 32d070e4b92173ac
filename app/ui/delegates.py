"""An item delegate that paints the model's HtmlRole (highlighted terms, badges) as rich text.

Rows word-wrap to the column's width and stop at `max_lines` lines, so one long message
cannot push the rest of the results off screen.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize
from PySide6.QtGui import QAbstractTextDocumentLayout, QFontMetrics, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.ui.models.rows import HtmlRole


class HtmlDelegate(QStyledItemDelegate):
    def __init__(self, parent: QObject | None = None, max_lines: int = 4) -> None:
        super().__init__(parent)
        self.max_lines = max_lines

    def _doc(self, option: QStyleOptionViewItem, html: str) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
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
        doc = self._doc(option, html)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
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
