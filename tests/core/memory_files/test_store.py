"""Atomic writes that never lose a concurrent edit, and conflict copies that keep both versions."""

from __future__ import annotations

import os

import pytest

from app.core.errors import Conflict, InvalidInput
from app.core.memory_files.fences import BEGIN, MergeStatus, block
from app.core.memory_files.store import MemoryFileStore, atomic_write


@pytest.fixture
def store(tmp_path):
    return MemoryFileStore(tmp_path / "memory").ensure()


def test_write_read_and_list_skip_hidden_and_temp_files(store):
    store.write("notes/idea.md", "# Idea\nhello\n")
    (store.root / "notes" / ".idea.md.123.tmp").write_text("half")
    (store.root / "notes" / "photo.png").write_bytes(b"x")
    assert [f.path for f in store.list()] == ["notes/idea.md"]
    found = store.read("notes/idea")
    assert found.text == "# Idea\nhello\n" and found.title == "Idea"


def test_a_write_made_from_an_old_version_keeps_both(store):
    first = store.write("strategy/plan.md", "v1\n")
    store.write("strategy/plan.md", "v2 by the user in their editor\n")
    with pytest.raises(Conflict) as caught:
        store.write("strategy/plan.md", "v1 + agent edit\n", expected_version=first.version)
    assert store.read("strategy/plan.md").text == "v2 by the user in their editor\n"
    copies = [f.path for f in store.list("strategy") if ".conflict-" in f.path]
    assert len(copies) == 1 and copies[0] in str(caught.value)
    assert store.read(copies[0]).text == "v1 + agent edit\n"


def test_atomic_write_refuses_when_the_file_changed_since_it_was_read(store):
    target = store.root / "notes" / "n.md"
    target.write_text("old")
    assert atomic_write(target, b"ours", check=True, unchanged_since=b"older") is False
    assert target.read_text() == "old"
    assert not [p for p in os.listdir(target.parent) if p.endswith(".tmp")]
    assert atomic_write(target, b"ours", check=True, unchanged_since=b"old") is True
    assert target.read_text() == "ours"


def test_update_reapplies_on_top_of_a_save_made_meanwhile(store):
    store.write("notes/log.md", "start\n")
    calls = []

    def append(current: str | None) -> str:
        calls.append(current)
        if len(calls) == 1:  # the user saves while we are computing our change
            (store.root / "notes" / "log.md").write_text("start\nuser line\n")
        return (current or "") + "agent line\n"

    store.update("notes/log.md", append)
    assert store.read("notes/log.md").text == "start\nuser line\nagent line\n"
    assert len(calls) == 2


def test_generated_block_update_keeps_user_text_and_permissions(store):
    new_file = f"# P\n\n{block('one')}\n\n## My notes\n"
    assert store.apply_generated("people/p.md", new_file, "one") is MergeStatus.CREATED
    path = store.root / "people" / "p.md"
    path.write_text(path.read_text() + "call her on Monday\n")
    os.chmod(path, 0o640)
    assert store.apply_generated("people/p.md", new_file, "two") is MergeStatus.UPDATED
    text = path.read_text()
    assert "two" in text and "one" not in text.split(BEGIN)[1] and text.endswith("call her on Monday\n")
    assert (path.stat().st_mode & 0o777) == 0o640


def test_non_utf8_and_oversized_input_fail_clearly(store):
    (store.root / "notes" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InvalidInput, match="UTF-8"):
        store.read("notes/latin1.md")
    assert store.apply_generated("notes/latin1.md", "x", "x") is MergeStatus.DAMAGED
    with pytest.raises(InvalidInput, match="KiB"):
        store.write("notes/big.md", "x" * (3 * 1024 * 1024))
