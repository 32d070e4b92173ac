"""Files screen on real services: tree, rendered page with working links, edit in place, search."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl

from app.ui.screens.files import to_markdown
from tests.ui.helpers import open_window, seed


@pytest.fixture
def screen(qtbot, services):
    seed(services)
    services.files.refresh()
    window = open_window(qtbot, services)
    return window.show_screen("files")


def _paths(screen) -> list[str]:
    out = []
    for i in range(screen.tree.topLevelItemCount()):
        node = screen.tree.topLevelItem(i)
        out += [node.child(j).data(0, 256) for j in range(node.childCount())]
    return out


def test_tree_page_links_edit_and_search(qtbot, screen, services):
    qtbot.waitUntil(lambda: "people/anna.md" in _paths(screen), timeout=5000)
    screen.open("people/anna.md")
    qtbot.waitUntil(lambda: "Where you talk" in screen.viewer.toPlainText(), timeout=5000)
    assert "strata:begin" not in screen.viewer.toPlainText()  # markers are not shown

    screen.follow(QUrl("memory:channels/slack-general.md"))  # a wiki link to another page
    qtbot.waitUntil(lambda: screen.current.path == "channels/slack-general.md", timeout=5000)
    record = services.memory.search("travel line", limit=1)[0]
    screen.follow(QUrl(f"strata://message/{record.id}"))  # a link to a source message
    qtbot.waitUntil(lambda: "travel line" in screen.viewer.toPlainText(), timeout=5000)
    screen.follow(QUrl("memory:back"))
    qtbot.waitUntil(lambda: "People" in screen.viewer.toPlainText(), timeout=5000)

    screen.start_edit()
    screen.editor.setPlainText(screen.editor.toPlainText() + "Standup moved to 9:30.\n")
    screen.save()
    qtbot.waitUntil(
        lambda: "Standup moved" in services.files.read("channels/slack-general.md").text, timeout=5000
    )
    qtbot.waitUntil(lambda: screen.pages.currentWidget() is screen.viewer, timeout=5000)

    screen.search_edit.setText("standup")
    screen.search()
    qtbot.waitUntil(lambda: _paths(screen) == ["channels/slack-general.md"], timeout=5000)
    assert screen.ctx.guard.violations == []


def test_wiki_links_become_clickable_markdown_links():
    text = (
        "---\ntitle: x\n---\n# X\n<!-- strata:begin generated · y -->\n"
        "- [[people/anna|Anna]] and [[notes/a]]\n"
    )
    assert to_markdown(text) == "# X\n\n- [Anna](memory:people/anna.md) and [notes/a](memory:notes/a.md)\n"
