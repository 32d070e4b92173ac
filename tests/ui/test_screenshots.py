"""`make screenshots`: every main-window page has a shot, and a render writes real, sized PNGs."""

from __future__ import annotations

from PySide6.QtGui import QImage

from app.core.embeddings.hashing import HashingEmbedder
from app.ui.main_window import SCREENS
from app.ui.screenshots import SHOTS, render


def test_every_page_of_the_main_window_has_a_screenshot():
    covered = {s.screen for s in SHOTS.values()}
    missing = [key for key, _label, _target in SCREENS if key not in covered]
    assert not missing, f"add a @shot for {missing} in app/ui/screenshots.py"


def test_render_writes_the_window_and_a_dialog_at_the_asked_size(tmp_path):
    written = render(tmp_path, ["search", "dialog-add-connector"], ((900, 600),), embedder=HashingEmbedder())
    assert [p.name for p in written] == ["search-900x600.png", "dialog-add-connector-900x600.png"]
    window = QImage(str(written[0]))
    assert (window.width(), window.height()) == (900, 600)
    dialog = QImage(str(written[1]))
    assert 0 < dialog.width() <= 900 and 0 < dialog.height() <= 600
    # Not a blank picture: the demo's results and text were painted.
    colours = {window.pixel(x, y) for x in range(0, 900, 7) for y in range(0, 600, 7)}
    assert len(colours) > 20
