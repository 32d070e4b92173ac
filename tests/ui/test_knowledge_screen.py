"""Knowledge Base screen on the real knowledge service: upload many files, list, preview, search, delete."""

from __future__ import annotations

import pytest

from app.ui.models.rows import RowRole
from tests.ui.helpers import open_window

pytest.importorskip("app.services.knowledge_service", reason="knowledge base not merged yet")


@pytest.fixture
def screen(qtbot, services):
    window = open_window(qtbot, services)
    return window.show_screen("knowledge_base")


def test_upload_files_then_listed_previewed_searched_deleted(qtbot, screen, services, tmp_path):
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
    qtbot.waitUntil(lambda: screen.model.rowCount() == 2, timeout=5000)
    names = {screen.model.index(r, 0).data(RowRole).file_name for r in range(2)}
    assert names == {"handbook.md", "notes.txt"}

    row = next(r for r in range(2) if screen.model.row_at(r).file_name == "handbook.md")
    screen.table.selectRow(row)
    qtbot.waitUntil(lambda: "Vacation policy" in screen.preview.toPlainText(), timeout=5000)

    screen.search_edit.setText("vacation days")
    screen.search()
    qtbot.waitUntil(
        lambda: screen.hits.count() > 0 and "handbook" in screen.hits.item(0).text(), timeout=5000
    )

    screen.confirm = lambda *_: True
    screen.delete_selected()
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=5000)
    assert [d.file_name for d in services.knowledge.list_documents()] == ["notes.txt"]
    assert window_guard_clean(screen)


def window_guard_clean(screen) -> bool:
    return screen.ctx.guard.violations == []
