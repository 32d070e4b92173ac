"""Knowledge Base screen on the real knowledge service: upload many files, list, preview, search,
open the original, delete; the queue clears and the viewer stays put while uploads finish."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from app.ui.models.rows import RowRole
from tests.ui.helpers import open_window

pytest.importorskip("app.services.knowledge_service", reason="knowledge base not merged yet")


@pytest.fixture
def screen(qtbot, services):
    window = open_window(qtbot, services)
    return window.show_screen("knowledge_base")


class UrlCatcher(QObject):
    """Receives the file: URLs the screen asks the desktop to open (Qt's own URL-handler hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened():
    catcher = UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    yield catcher.urls
    QDesktopServices.unsetUrlHandler("file")


def test_upload_files_then_listed_previewed_searched_deleted(qtbot, screen, services, tmp_path, opened):
    assert screen.add_button.isVisible() and screen.add_button.text() == "Add files…"
    assert not screen.open_button.isEnabled()  # nothing open yet
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text("# Handbook\n\nVacation policy: 25 days per year.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("The office plant needs water on Mondays.\n", encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a pdf")
    screen.add_paths([docs])  # a dropped folder: its files are queued one by one
    qtbot.waitUntil(lambda: len(screen.uploads.rows) == 3 and not screen.uploads_pending(), timeout=20000)
    states = {r.path.name: r.state for r in screen.uploads.rows}
    assert states == {"handbook.md": "done", "notes.txt": "done", "broken.pdf": "failed"}
    failed = next(r for r in screen.uploads.rows if r.state == "failed")
    assert failed.message  # the parser's reason is shown next to the file
    screen.clear_finished()  # what the timer does a few seconds after the last upload
    assert [r.path.name for r in screen.uploads.rows] == ["broken.pdf"]  # failures stay to be read
    qtbot.waitUntil(lambda: screen.model.rowCount() == 2, timeout=5000)
    names = {screen.model.index(r, 0).data(RowRole).file_name for r in range(2)}
    assert names == {"handbook.md", "notes.txt"}

    row = next(r for r in range(2) if screen.model.row_at(r).file_name == "handbook.md")
    screen.table.selectRow(row)
    qtbot.waitUntil(lambda: "Vacation policy" in screen.preview.toPlainText(), timeout=5000)

    screen.open_original()
    doc = screen.selected()
    stored = Path(services.settings.data_dir) / doc.blob_path
    assert [u.toLocalFile() for u in opened] == [str(stored)] and stored.is_file()
    assert stored.read_text(encoding="utf-8").startswith("# Handbook")
    screen.show_in_folder()
    assert opened[-1].toLocalFile() == str(stored.parent)

    screen.search_edit.setText("vacation days")
    screen.search()
    qtbot.waitUntil(
        lambda: screen.hits.count() > 0 and "handbook" in screen.hits.item(0).text(), timeout=5000
    )

    screen.confirm = lambda *_: True
    screen.delete_selected()
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=5000)
    assert [d.file_name for d in services.knowledge.list_documents()] == ["notes.txt"]
    assert "Select a document" in screen.preview.toPlainText() and not screen.open_button.isEnabled()
    assert screen.ctx.guard.violations == []


def test_viewer_stays_on_its_document_while_uploads_finish(qtbot, screen, services, tmp_path):
    first = tmp_path / "zeta.md"
    first.write_text("# Zeta\n\nThe zeta document talks about gardening.\n", encoding="utf-8")
    services.knowledge.add_file(first)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=5000)
    screen.table.selectRow(0)
    qtbot.waitUntil(lambda: "gardening" in screen.preview.toPlainText(), timeout=5000)
    more = []
    for name in ("alpha.md", "beta.md", "gamma.md"):  # sorted before zeta: the rows shift under it
        path = tmp_path / name
        path.write_text(f"# {name}\n\nAbout {name}.\n", encoding="utf-8")
        more.append(path)
    screen.add_paths(more)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 4 and not screen.uploads_pending(), timeout=20000)
    qtbot.wait(300)
    assert "gardening" in screen.preview.toPlainText()  # still the document the user was reading
    assert screen.selected().file_name == "zeta.md"
    current = screen.model.row_at(screen.table.currentIndex().row())
    assert current is not None and current.file_name == "zeta.md"
    qtbot.waitUntil(lambda: screen.uploads.rowCount() == 0 and screen.upload_view.isHidden(), timeout=10000)
