"""Names inside the memory folder: validation that keeps every path confined, and file-name slugs."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from app.core.errors import InvalidInput, NotFound

# The specification's sub-folders; `notes` and `strategy` are the user's (and agents') own.
FOLDERS = ("chats", "channels", "people", "projects", "notes", "strategy")
GENERATED_FOLDERS = ("chats", "channels", "people", "projects")
WRITABLE_FOLDERS = ("notes", "strategy")
SUFFIX = ".md"
MAX_PATH_CHARS = 300
_SLUG_DROP = re.compile(r"[^\w]+", re.UNICODE)
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
HINT = "use a path relative to the memory folder, such as people/anna.md (see `strata files list`)"


def normalize(path: str) -> str:
    """`path` as a clean relative POSIX name inside the memory folder, or InvalidInput saying why.

    Rejects what could leave the folder or hide a file: absolute paths, drive letters,
    backslashes, `..` and `.` parts, hidden (dot) parts and control characters.
    """
    text = (path or "").strip()
    if not text:
        raise InvalidInput("a memory file path is needed", hint=HINT)
    if len(text) > MAX_PATH_CHARS:
        raise InvalidInput(f"memory file path is longer than {MAX_PATH_CHARS} characters", hint=HINT)
    if any(ord(c) < 32 for c in text):
        raise InvalidInput("memory file path contains control characters", hint=HINT)
    if "\\" in text or text.startswith(("/", "~")) or _WINDOWS_DRIVE.match(text):
        raise InvalidInput(f"{path!r} is not a relative path inside the memory folder", hint=HINT)
    parts = [p for p in text.split("/") if p]  # PurePosixPath would hide "." parts
    for part in parts:
        if part in ("..", "."):
            raise InvalidInput(f"{path!r} may not contain '{part}'", hint=HINT)
        if part.startswith("."):
            raise InvalidInput(f"{path!r} names a hidden file or folder", hint=HINT)
    return "/".join(parts)


def normalize_file(path: str) -> str:
    """A markdown file's name: normalized, inside one of the known folders, ending in `.md`."""
    name = normalize(path)
    if not name.endswith(SUFFIX):
        name += SUFFIX  # `people/anna` means `people/anna.md`, as wiki links write it
    if "/" not in name or name.split("/", 1)[0] not in FOLDERS:
        raise InvalidInput(
            f"{path!r} is not inside one of the memory folders",
            hint=f"start with one of: {', '.join(FOLDERS)}",
        )
    return name


def confined(root: Path, name: str, *, must_exist: bool = False) -> Path:
    """The absolute path for `name` (already normalized) under `root`, refusing symlinks out.

    The real path (symlinks resolved) must stay inside the real root, so a link that points
    elsewhere cannot be read or written through.
    """
    real_root = Path(os.path.realpath(root))
    target = real_root.joinpath(*name.split("/"))
    real = Path(os.path.realpath(target))
    if real != real_root and real_root not in real.parents:
        raise InvalidInput(f"{name!r} leads outside the memory folder (a symbolic link)", hint=HINT)
    if must_exist and not real.is_file():
        raise NotFound(f"no memory file {name!r}", hint="see `strata files list`")
    return real


def slug(name: str, *, max_chars: int = 80) -> str:
    """A file-name-safe, readable form of `name` ("Anna Schmidt" → "anna-schmidt"); never empty.

    Letters of any script stay (a Chinese name keeps its characters); everything else becomes `-`.
    """
    plain = unicodedata.normalize("NFKC", name).casefold()
    text = _SLUG_DROP.sub("-", plain).strip("-_")[:max_chars].strip("-_")
    if not text:
        text = "unnamed-" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return text


def link_target(name: str) -> str:
    """The wiki-link form of a file name: `people/anna.md` → `people/anna`."""
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
