"""Path confinement and file-name slugs for the memory folder."""

from __future__ import annotations

import os

import pytest

from app.core.errors import InvalidInput, NotFound
from app.core.memory_files.paths import confined, normalize_file, slug

ESCAPES = [
    "../secrets.json",
    "people/../../strata.sqlite3",
    "/etc/passwd",
    "~/notes.md",
    "C:/Windows/win.ini",
    "people\\..\\..\\x.md",
    "people/./anna.md",
    "people/.hidden.md",
    "people/anna\x00.md",
    "",
    "   ",
    "elsewhere/anna.md",
    "a" * 400,
]


@pytest.mark.parametrize("path", ESCAPES)
def test_paths_that_could_leave_the_folder_are_refused(path):
    with pytest.raises(InvalidInput):
        normalize_file(path)


def test_good_names_are_normalized():
    assert normalize_file("people/anna") == "people/anna.md"
    assert normalize_file(" notes/sub/idea.md ") == "notes/sub/idea.md"


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    outside = tmp_path / "secret.md"
    outside.write_text("secret")
    os.symlink(outside, root / "notes" / "link.md")
    os.symlink(tmp_path, root / "people")
    with pytest.raises(InvalidInput, match="outside"):
        confined(root, "notes/link.md")
    with pytest.raises(InvalidInput, match="outside"):
        confined(root, "people/secret.md")
    inside = root / "notes" / "real.md"
    inside.write_text("ok")
    os.symlink(inside, root / "notes" / "alias.md")
    assert confined(root, "notes/alias.md", must_exist=True) == inside.resolve()
    with pytest.raises(NotFound):
        confined(root, "notes/missing.md", must_exist=True)


def test_slugs_are_readable_safe_and_never_empty():
    assert slug("Anna Schmidt") == "anna-schmidt"
    assert slug("../../etc") == "etc"
    assert slug("王小明") == "王小明"
    assert slug("Ünïcödé Näme!") == "ünïcödé-näme"
    assert slug("???").startswith("unnamed-")
    assert len(slug("x" * 500)) <= 80
