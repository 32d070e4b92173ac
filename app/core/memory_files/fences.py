"""Generated blocks inside user-editable files: front matter, the fence markers, and the merge.

A generated file holds one block between a begin and an end marker. Regeneration replaces only
the text between the markers; every byte outside them (front matter, the user's own notes,
line endings) is kept. A file whose front matter says `user_owned: true`, or whose markers the
user deleted, belongs to the user and is never rewritten; a file with broken markers (one
without the other, or two blocks) is left alone and reported, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

BEGIN = (
    "<!-- strata:begin generated · Strata rewrites this block on refresh; write your own notes outside it -->"
)
END = "<!-- strata:end generated -->"
_BEGIN_RE = re.compile(r"^<!-- strata:begin generated\b.*-->[ \t]*\r?$", re.MULTILINE)
_END_RE = re.compile(r"^<!-- strata:end generated\b.*-->[ \t]*\r?$", re.MULTILINE)
OWNER_KEY = "user_owned"
_TRUE = {"true", "yes", "on", "1"}


class MergeStatus(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    USER_OWNED = "user_owned"  # front-matter flag set, or the markers were removed
    DAMAGED = "damaged"  # markers present but unpaired or repeated: left untouched


@dataclass(frozen=True, slots=True)
class Merge:
    """What a merge decided: the text to write (None when nothing should be written)."""

    status: MergeStatus
    text: str | None


def front_matter(text: str) -> dict[str, str]:
    """The flat `key: value` lines of a leading `---` block (enough for our flags; not full YAML)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    values: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            return values
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "#")):
            # A trailing ` # comment` is YAML's comment, not part of the value.
            values[key.strip()] = value.split(" #", 1)[0].strip().strip("'\"")
    return {}  # no closing line: not front matter


def is_user_owned(text: str) -> bool:
    return front_matter(text).get(OWNER_KEY, "").casefold() in _TRUE


def block(body: str) -> str:
    """`body` wrapped in the markers, each on its own line."""
    return f"{BEGIN}\n{body.rstrip()}\n{END}"


def generated_body(text: str) -> str | None:
    """The text between the markers, or None when the file has no single intact block."""
    span = _span(text)
    if span is None:
        return None
    start, end = span
    return text[start:end].strip("\r\n")


def merge(existing: str | None, new_file: str, body: str, *, append_if_missing: bool = False) -> Merge:
    """Decide what to write: `new_file` for a new file, else `existing` with its block replaced by `body`.

    `append_if_missing`: a file the user wrote to ask for a page (a project file naming its
    keywords) gets the block appended after their text the first time.
    """
    if existing is None:
        return Merge(MergeStatus.CREATED, new_file)
    if is_user_owned(existing):
        return Merge(MergeStatus.USER_OWNED, None)
    begins = list(_BEGIN_RE.finditer(existing))
    ends = list(_END_RE.finditer(existing))
    if not begins and not ends:
        if append_if_missing:
            gap = "\n" if existing.endswith("\n") else "\n\n"
            return Merge(MergeStatus.UPDATED, existing + gap + block(body) + "\n")
        return Merge(MergeStatus.USER_OWNED, None)
    span = _span(existing)
    if span is None:
        return Merge(MergeStatus.DAMAGED, None)
    start, end = span
    # Keep the file's own line ending inside the block, so a CRLF file stays CRLF.
    newline = "\r\n" if existing[begins[0].end() - 1 : begins[0].end()] == "\r" else "\n"
    inner = newline + body.rstrip().replace("\n", newline) + newline
    if existing[start:end] == inner:
        return Merge(MergeStatus.UNCHANGED, None)
    return Merge(MergeStatus.UPDATED, existing[:start] + inner + existing[end:])


def _span(text: str) -> tuple[int, int] | None:
    """Offsets of the block's inside: just after the begin line's text, up to the end line."""
    begins = list(_BEGIN_RE.finditer(text))
    ends = list(_END_RE.finditer(text))
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        return None
    begin_end = begins[0].end()
    if text[begin_end - 1 : begin_end] == "\r":
        begin_end -= 1  # the match's `\r?$` took the CR; the inside starts at the line break
    return begin_end, ends[0].start()
