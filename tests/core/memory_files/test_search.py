"""Case-insensitive full-text search over the files, with edits on disk picked up by the next search."""

from __future__ import annotations

import os

import pytest

from app.core.errors import InvalidInput
from app.core.memory_files.search import FileIndex
from app.core.memory_files.store import MemoryFileStore


@pytest.fixture
def index(tmp_path):
    store = MemoryFileStore(tmp_path / "memory").ensure()
    store.write("people/anna.md", "---\ntitle: Anna Schmidt\n---\n# Anna\nLives in the Straße of Berlin.\n")
    store.write(
        "channels/slack-launch.md", "# #launch\nThe launch moves to Tuesday.\nAnna owns the press kit.\n"
    )
    store.write("notes/tokyo.md", "# 出張\n東京の会議は金曜日です。\n")
    return FileIndex(store)


def test_search_is_case_insensitive_and_ranks_the_named_page_first(index):
    hits = index.search("ANNA")
    assert [h.path for h in hits] == ["people/anna.md", "channels/slack-launch.md"]
    assert hits[1].snippets == ((3, "Anna owns the press kit."),)
    assert [h.path for h in index.search("strasse")] == ["people/anna.md"]  # casefold: ß = ss


def test_cjk_phrases_and_all_terms(index):
    assert [h.path for h in index.search("東京")] == ["notes/tokyo.md"]
    assert [h.path for h in index.search('"press kit" anna')] == ["channels/slack-launch.md"]
    # No file holds every word: files holding some still answer.
    assert [h.path for h in index.search("launch zebra")] == ["channels/slack-launch.md"]
    assert index.search("zebra") == []
    assert [h.path for h in index.search("anna", folder="people")] == ["people/anna.md"]


def test_edits_deletes_and_new_files_on_disk_are_seen_by_the_next_search(index):
    assert index.search("budget") == []
    root = index.store.root
    (root / "notes" / "budget.md").write_text("Q1 budget is 40k\n")
    path = root / "people" / "anna.md"
    path.write_text(path.read_text() + "Prefers BUDGET talks in the morning\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert {h.path for h in index.search("budget")} == {"notes/budget.md", "people/anna.md"}
    (root / "notes" / "budget.md").unlink()
    assert [h.path for h in index.search("budget")] == ["people/anna.md"]
    assert index.refresh() == 0  # nothing changed since: nothing re-read


def test_bad_queries_say_what_is_wrong(index):
    with pytest.raises(InvalidInput):
        index.search("   ")
    with pytest.raises(InvalidInput):
        index.search("x" * 600)
