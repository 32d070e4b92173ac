"""The memory folder on disk: confined reads, atomic writes, and writes that never lose an edit.

Every write goes to a temporary file in the same folder and is renamed over the target, so a
reader (an editor, Obsidian, a sync tool) sees the old or the new file, never half of one.
Before the rename the file is read again: if someone saved it meanwhile, a generated-block
update is merged again on top of their version, and a whole-file write made from an older
version is kept as a conflict copy next to theirs instead of replacing it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import Conflict, InvalidInput
from app.core.memory_files.fences import Merge, MergeStatus, front_matter, is_user_owned, merge
from app.core.memory_files.paths import FOLDERS, SUFFIX, confined, normalize, normalize_file

MAX_FILE_BYTES = 2 * 1024 * 1024  # a memory file is a page of notes, not a data dump
MERGE_ATTEMPTS = 3


def fingerprint(data: bytes) -> str:
    """Names one version of a file's bytes (callers send it back to say which version they edited)."""
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str
    folder: str
    size: int
    modified_ns: int


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: str
    text: str
    version: str
    modified_ns: int

    @property
    def user_owned(self) -> bool:
        return is_user_owned(self.text)

    @property
    def title(self) -> str:
        return title_of(self.path, self.text)


def title_of(path: str, text: str) -> str:
    """Front-matter `title`, else the first `# ` heading, else the file name."""
    title = front_matter(text).get("title")
    if title:
        return title
    for line in text.splitlines()[:40]:
        if line.startswith("# "):
            return line[2:].strip()
    return path.rsplit("/", 1)[-1].removesuffix(SUFFIX)


class MemoryFileStore:
    """The files under one memory folder (`<data dir>/memory`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def ensure(self) -> MemoryFileStore:
        for folder in FOLDERS:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        return self

    # -- reading -------------------------------------------------------------------------------
    def walk(self, folder: str | None = None) -> Iterator[tuple[str, os.stat_result]]:
        """(name, stat) of every visible `.md` file, skipping hidden entries and links out.

        `os.scandir` with names built by concatenation: a search stats every file each time,
        so this loop is the search's fixed cost (about 1,000 files per few ms).
        """
        if folder is not None:
            top = normalize(folder)
            if top.split("/", 1)[0] not in FOLDERS:
                raise InvalidInput(f"unknown memory folder {folder!r}", hint=f"one of: {', '.join(FOLDERS)}")
            starts = [top]
        else:
            starts = list(FOLDERS)
        real_root = os.path.realpath(self.root) + os.sep
        for start in starts:
            yield from self._scan(start, real_root)

    def _scan(self, rel_dir: str, real_root: str) -> Iterator[tuple[str, os.stat_result]]:
        try:
            entries = sorted(os.scandir(os.path.join(self.root, rel_dir)), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = f"{rel_dir}/{entry.name}"
            try:
                if entry.is_symlink() and not os.path.realpath(entry.path).startswith(real_root):
                    continue  # a link that leads out of the folder is not ours to show
                if entry.is_dir():
                    yield from self._scan(name, real_root)
                elif entry.name.endswith(SUFFIX):
                    st = entry.stat()
                    if stat.S_ISREG(st.st_mode):
                        yield name, st
            except OSError:
                continue  # vanished while we looked

    def list(self, folder: str | None = None) -> list[FileInfo]:
        return [
            FileInfo(name, name.split("/", 1)[0], st.st_size, st.st_mtime_ns)
            for name, st in self.walk(folder)
        ]

    def read(self, path: str) -> MemoryFile:
        name = normalize_file(path)
        target = confined(self.root, name, must_exist=True)
        data = target.read_bytes()
        return MemoryFile(name, _decode(name, data), fingerprint(data), target.stat().st_mtime_ns)

    def exists(self, path: str) -> bool:
        name = normalize_file(path)
        return confined(self.root, name).is_file()

    # -- writing -------------------------------------------------------------------------------
    def write(self, path: str, text: str, *, expected_version: str | None = None) -> MemoryFile:
        """Replace a whole file; `expected_version` is the version the caller edited (None: any).

        When the file changed since that version, nothing of the current file is lost: the
        caller's text is kept as `<name>.conflict-<time>.md` beside it and Conflict is raised.
        """
        name = normalize_file(path)
        data = text.encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            raise InvalidInput(
                f"{name}: over {MAX_FILE_BYTES // 1024} KiB", hint="split it into several files"
            )
        target = confined(self.root, name)
        current = _read_or_none(target)
        if expected_version is not None and (current is None or fingerprint(current) != expected_version):
            copy = self._conflict_copy(name, data)
            raise Conflict(
                f"{name} changed since you opened it; both versions are kept",
                hint=f"your text was saved as {copy}; compare the two and merge by hand",
            )
        atomic_write(target, data)
        return self.read(name)

    def apply_generated(
        self, path: str, new_file: str, body: str, *, append_if_missing: bool = False
    ) -> MergeStatus:
        """Create the file, or replace only its generated block; a concurrent save is merged, not lost."""
        name = normalize_file(path)
        target = confined(self.root, name)
        for _ in range(MERGE_ATTEMPTS):
            before = _read_or_none(target)
            try:
                text = None if before is None else before.decode("utf-8")
                result: Merge = merge(text, new_file, body, append_if_missing=append_if_missing)
            except UnicodeDecodeError:
                return MergeStatus.DAMAGED  # not text we wrote: leave it to its owner
            if result.text is None:
                return result.status
            if atomic_write(target, result.text.encode("utf-8"), check=True, unchanged_since=before):
                return result.status
            # Someone saved between our read and our rename: merge again on their version.
        return MergeStatus.DAMAGED

    def update(self, path: str, change: Callable[[str | None], str]) -> tuple[MemoryFile, bool]:
        """Rewrite a file as `change(current text or None)`; re-run on a save made meanwhile.

        Returns the file and whether it was created."""
        name = normalize_file(path)
        target = confined(self.root, name)
        for _ in range(MERGE_ATTEMPTS):
            before = _read_or_none(target)
            text = change(None if before is None else _decode(name, before))
            data = text.encode("utf-8")
            if len(data) > MAX_FILE_BYTES:
                raise InvalidInput(
                    f"{name}: would grow over {MAX_FILE_BYTES // 1024} KiB", hint="start a new file"
                )
            if atomic_write(target, data, check=True, unchanged_since=before):
                return self.read(name), before is None
        raise Conflict(f"{name} kept changing while Strata tried to update it", hint="try again")

    def delete(self, path: str) -> None:
        name = normalize_file(path)
        target = confined(self.root, name, must_exist=True)
        target.unlink()

    def _conflict_copy(self, name: str, data: bytes) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        base = name.removesuffix(SUFFIX)
        for n in range(100):
            candidate = f"{base}.conflict-{stamp}{'-' + str(n) if n else ''}{SUFFIX}"
            target = confined(self.root, candidate)
            if not target.exists():
                atomic_write(target, data)
                return candidate
        raise Conflict(f"{name}: too many conflict copies", hint="merge or delete the .conflict files")


def atomic_write(
    target: Path, data: bytes, *, check: bool = False, unchanged_since: bytes | None = None
) -> bool:
    """Write `data` to `target` through a temp file + rename. With `check`, returns False (writing
    nothing) when the file's bytes just before the rename differ from `unchanged_since`
    (None: the file must still be absent)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))  # keep the user's permissions
        if check and _read_or_none(target) != unchanged_since:
            os.unlink(tmp)
            return False
        os.replace(tmp, target)
        return True
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _read_or_none(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def _decode(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{name} is not UTF-8 text", hint="save it as UTF-8 in your editor") from exc
