"""The app icon: the bundled SVG when Qt can render it, else the same shape painted in code."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

from app.core.paths import resource_path


def app_icon() -> QIcon:
    path = resource_path("icons", "strata.svg")
    if path.exists():
        icon = QIcon(str(path))
        if not icon.pixmap(32, 32).isNull():
            return icon
    return QIcon(_painted(64))


def _painted(size: int) -> QPixmap:
    # Fallback for builds without the SVG image plug-in: three stacked bars = strata.
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor("#4f7cff"))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(QRectF(2, 2, size - 4, size - 4), size * 0.22, size * 0.22)
    p.setBrush(QColor("#ffffff"))
    unit = size / 64
    for i, width in enumerate((36, 28, 20)):
        p.drawRoundedRect(QRectF(14 * unit, (16 + 13 * i) * unit, width * unit, 7 * unit), 3.5, 3.5)
    p.end()
    return pix
