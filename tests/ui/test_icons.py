"""Shipped SVG icons: every one renders, dark theme recolours them, avatars show initials."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from app.ui.icons import (
    PLATFORM_ICONS,
    SCREEN_ICONS,
    avatar,
    avatar_colour,
    icon,
    icon_img,
    icon_names,
    pixmap,
)
from app.ui.theme import apply_theme


def _painted(image) -> int:
    return sum(
        1 for x in range(image.width()) for y in range(image.height()) if image.pixelColor(x, y).alpha() > 0
    )


def test_every_shipped_icon_renders(qapp):
    names = icon_names()
    assert set(SCREEN_ICONS.values()) | set(PLATFORM_ICONS.values()) <= set(names)
    for name in names:
        assert _painted(pixmap(name, 24).toImage()) > 20, name
        assert not icon(name).pixmap(16, 16).isNull()


def test_unknown_icon_names_the_known_ones(qapp):
    with pytest.raises(KeyError, match="pin"):
        pixmap("no-such-icon", 16)


def test_dark_theme_recolours_stroke_icons(qapp):
    app = QApplication.instance()
    try:
        apply_theme(app, dark=False)
        light = icon("pin").pixmap(24, 24).toImage()
        apply_theme(app, dark=True)
        dark = icon("pin").pixmap(24, 24).toImage()
    finally:
        apply_theme(app, dark=False)
    assert light != dark


def test_avatars_are_stable_and_rich_text_uses_files(qapp):
    assert avatar_colour("Anna") == avatar_colour("anna ")
    assert not avatar("Anna Berg", 28).isNull()
    assert "resources/icons/document.svg" in icon_img("document")
