"""Secondary words in result rows ("Insight:", "· archived") stay legible on the selection."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from app.ui.delegates import muted_colour
from app.ui.theme import build_palette


def _luminance(colour: QColor) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour.getRgb()[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: QColor, b: QColor) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_muted_words_read_on_the_selection_and_on_plain_rows(qtbot):
    for theme in (False, True):  # light, dark
        palette = build_palette(theme)
        selected = muted_colour(palette, True)
        plain = muted_colour(palette, False)
        back = palette.color(QPalette.ColorRole.Highlight)
        full = contrast(palette.color(QPalette.ColorRole.HighlightedText), back)
        # Nearly as legible as the row's own text (white on the accent is ~3.7:1), where the
        # fixed grey it replaces was ~1.1:1.
        assert contrast(selected, back) >= max(3.0, 0.8 * full), theme
        assert contrast(QColor("gray"), back) < 1.5
        # Still secondary: not the selected row's full text colour.
        assert selected != palette.color(QPalette.ColorRole.HighlightedText)
        assert contrast(plain, palette.color(QPalette.ColorRole.Base)) >= 2.5, theme
