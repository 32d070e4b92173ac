"""The generated block: replaced on refresh, while every byte outside it stays the user's."""

from __future__ import annotations

from app.core.memory_files.fences import BEGIN, END, MergeStatus, block, front_matter, generated_body, merge

NEW_FILE = f"---\ntitle: Anna\n---\n# Anna\n\n{block('old body')}\n\n## My notes\n"


def test_a_new_file_is_written_whole():
    result = merge(None, NEW_FILE, "old body")
    assert result.status is MergeStatus.CREATED and result.text == NEW_FILE


def test_only_the_block_changes_and_user_text_is_kept_byte_for_byte():
    user = NEW_FILE.replace("# Anna\n", "# Anna\nmet at FOSDEM  \n\t- trailing tab\n") + "my own line\n\n\n"
    result = merge(user, NEW_FILE, "new body\nsecond line")
    assert result.status is MergeStatus.UPDATED and result.text is not None
    before, after = user.split(BEGIN)[0], user.split(END)[1]
    assert result.text.startswith(before) and result.text.endswith(after)
    assert generated_body(result.text) == "new body\nsecond line"
    assert merge(result.text, NEW_FILE, "new body\nsecond line").status is MergeStatus.UNCHANGED


def test_crlf_files_stay_crlf():
    user = NEW_FILE.replace("\n", "\r\n") + "note\r\n"
    result = merge(user, NEW_FILE, "a\nb")
    assert result.text is not None
    assert "\n" not in result.text.replace("\r\n", "")
    assert result.text.endswith("## My notes\r\nnote\r\n")
    assert generated_body(result.text) == "a\r\nb"


def test_user_owned_and_marker_free_files_are_never_rewritten():
    owned = NEW_FILE.replace("title: Anna", "title: Anna\nuser_owned: true  # mine now")
    assert merge(owned, NEW_FILE, "x").status is MergeStatus.USER_OWNED
    stripped = NEW_FILE.replace(BEGIN + "\n", "").replace(END + "\n", "")
    assert merge(stripped, NEW_FILE, "x").status is MergeStatus.USER_OWNED


def test_damaged_markers_leave_the_file_alone():
    for damaged in (NEW_FILE.replace(END, ""), NEW_FILE + block("again"), NEW_FILE.replace(BEGIN, "x")):
        result = merge(damaged, NEW_FILE, "x")
        assert result.status in (MergeStatus.DAMAGED, MergeStatus.USER_OWNED) and result.text is None


def test_front_matter_is_read_flat_with_comments_dropped():
    assert front_matter('---\ntitle: "A: B"\nuser_owned: false  # c\n---\nbody') == {
        "title": "A: B",
        "user_owned": "false",
    }
    assert front_matter("no front matter") == {}
    assert front_matter("---\nunclosed: yes\n") == {}
