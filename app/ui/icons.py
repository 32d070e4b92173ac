"""Icons from resources/icons (SVG, no emoji fonts needed), initials avatars, and the app icon.

Screens use `icon("pin")`, `platform_icon("slack")`, `avatar("Anna Berg", 28)` and, inside rich
text, `icon_img("document")`. Stroke icons are drawn in ICON_GREY and recoloured on request
(e.g. for the dark theme) by replacing that colour in the SVG text before rendering.
"""

from __future__ import annotations

import zlib
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.core.paths import resource_path
from app.ui.theme import is_dark

ICON_GREY = "#5f6673"
ICON_LIGHT = "#c9ccd1"  # the stroke colour on the dark theme
ICON_SIZES = (16, 20, 24, 32, 48)
# A screen key of the main window → its sidebar icon.
SCREEN_ICONS = {
    "search": "search",
    "insights": "insights",
    "knowledge_base": "knowledge",
    "connectors": "connectors",
    "memory": "memory",
    "files": "files",
    "settings": "settings",
}
PLATFORM_ICONS = {
    "slack": "slack",
    "discord": "discord",
    "telegram": "telegram",
    "whatsapp": "whatsapp",
    "mail": "mail",
    "email": "mail",
    "knowledge_base": "document",
}
# Soft, readable avatar backgrounds (white initials on each pass WCAG AA for large text).
AVATAR_COLOURS = ("#4f7cff", "#2f9e44", "#e8590c", "#5f3dc4", "#c2255c", "#0b7285", "#5c940d", "#862e9c")


def icon_path(name: str) -> Path:
    return resource_path("icons", f"{name}.svg")


def icon_names() -> list[str]:
    return sorted(p.stem for p in resource_path("icons").glob("*.svg"))


@lru_cache(maxsize=256)
def _svg(name: str, colour: str | None) -> bytes:
    path = icon_path(name)
    if not path.exists():
        raise KeyError(f"no icon {name!r} in {path.parent}; one of {', '.join(icon_names())}")
    text = path.read_text(encoding="utf-8")
    return (text.replace(ICON_GREY, colour) if colour else text).encode()


def pixmap(name: str, size: int, colour: str | None = None) -> QPixmap:
    """The named icon drawn at `size`×`size` device-independent pixels."""
    renderer = QSvgRenderer(QByteArray(_svg(name, colour)))
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return pix


def icon(name: str, colour: str | None = None) -> QIcon:
    """A QIcon for buttons, menus and list items, in the theme's stroke colour unless `colour` is
    given; unknown names raise KeyError listing the known ones."""
    return _icon(name, colour or (ICON_LIGHT if is_dark() else None))


@lru_cache(maxsize=256)
def _icon(name: str, colour: str | None) -> QIcon:
    result = QIcon()
    for size in ICON_SIZES:
        result.addPixmap(pixmap(name, size, colour))
    return result


def platform_icon(platform: str | None) -> QIcon:
    return icon(PLATFORM_ICONS.get((platform or "").lower(), "message"))


def icon_img(name: str, size: int = 14) -> str:
    """An <img> for Qt rich text (labels, QTextBrowser); the file is read from resources/icons."""
    src = icon_path(name).as_posix()
    return f'<img src="{src}" width="{size}" height="{size}" style="vertical-align:middle">'


def avatar_colour(name: str) -> str:
    return AVATAR_COLOURS[zlib.crc32(name.strip().lower().encode()) % len(AVATAR_COLOURS)]


@lru_cache(maxsize=512)
def avatar(name: str, size: int = 28) -> QPixmap:
    """A round avatar with the person's initials, coloured by a stable hash of the name."""
    from app.ui.formatting import initials

    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(avatar_colour(name)))
    painter.drawEllipse(QRectF(0, 0, size, size))
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(8, int(size * 0.4)))
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, initials(name))
    painter.end()
    return pix


def app_icon() -> QIcon:
    path = resource_path("icons", "strata.svg")
    if path.exists():
        app = QIcon(str(path))
        if not app.pixmap(32, 32).isNull():
            return app
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
