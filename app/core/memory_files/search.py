"""Case-insensitive full-text search over the memory files, rescanning changed files by mtime.

Each search first stats the folder (one `os.walk`, cheap for thousands of files) and re-reads
only files whose size or modification time changed, so an edit made in any editor is found by
the next search without a watcher process. Matching is on `str.casefold()` text, so "STRASSE"
finds "Straße" and non-Latin scripts match as substrings (no tokenizer needed for CJK).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from app.core.errors import InvalidInput
from app.core.memory_files.store import MAX_FILE_BYTES, MemoryFileStore, title_of

MAX_QUERY_CHARS = 500
SNIPPET_CHARS = 240
MAX_SNIPPETS = 3
_TERM = re.compile(r'"([^"]+)"|(\S+)')


@dataclass(frozen=True, slots=True)
class FileHit:
    path: str
    title: str
    score: float
    snippets: tuple[tuple[int, str], ...]  # (1-based line number, line text)
    modified_ns: int

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "title": self.title,
            "score": round(self.score, 4),
            "snippets": [{"line": n, "text": t} for n, t in self.snippets],
            "modified_ns": self.modified_ns,
        }


@dataclass(frozen=True, slots=True)
class _Entry:
    stamp: tuple[int, int]  # (mtime_ns, size): changed stamp → re-read
    text: str
    folded: str
    title: str


def terms_of(query: str) -> list[str]:
    """Quoted phrases stay whole; other words split on spaces; everything casefolded."""
    text = (query or "").strip()
    if not text:
        raise InvalidInput("a search needs some text", hint='e.g. strata files search "launch date"')
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(f"search text is longer than {MAX_QUERY_CHARS} characters")
    found = [(m.group(1) or m.group(2)).casefold().strip() for m in _TERM.finditer(text)]
    return list(dict.fromkeys(t for t in found if t))


class FileIndex:
    """An in-memory copy of the memory files' text, kept current by stat on every search."""

    def __init__(self, store: MemoryFileStore) -> None:
        self.store = store
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def refresh(self) -> int:
        """Bring the copy in line with the disk; returns how many files were (re)read."""
        seen: dict[str, tuple[int, int]] = {}
        for name, st in self.store.walk():
            seen[name] = (st.st_mtime_ns, st.st_size)
        read = 0
        with self._lock:
            for name in set(self._entries) - set(seen):
                del self._entries[name]
            for name, stamp in seen.items():
                entry = self._entries.get(name)
                if entry is not None and entry.stamp == stamp:
                    continue
                loaded = self._load(name, stamp)
                if loaded is None:
                    self._entries.pop(name, None)
                else:
                    self._entries[name] = loaded
                    read += 1
        return read

    def documents(self) -> Iterator[tuple[str, str, str, int]]:
        """(path, title, text, mtime_ns) of every file, for an indexer that wants them all."""
        self.refresh()
        with self._lock:
            items = list(self._entries.items())
        for name, entry in items:
            yield name, entry.title, entry.text, entry.stamp[0]

    def search(self, query: str, *, folder: str | None = None, limit: int = 20) -> list[FileHit]:
        """Files holding every term (a phrase in quotes counts as one), best first.

        When no file holds them all, files holding any term are returned, ranked by how many they
        hold, so a long question still finds the page that answers part of it.
        """
        terms = terms_of(query)
        self.refresh()
        with self._lock:
            entries = [
                (n, e)
                for n, e in self._entries.items()
                if folder is None or n.startswith(folder.rstrip("/") + "/")
            ]
        total = max(len(entries), 1)
        # One count per (file, term): document frequencies and scores come from the same pass.
        counted = [(n, e, [e.folded.count(t) for t in terms]) for n, e in entries]
        df = [sum(1 for _, _, c in counted if c[i]) for i in range(len(terms))]
        scored: list[tuple[float, int, str, _Entry]] = []
        for name, entry, counts in counted:
            held = sum(1 for c in counts if c)
            if not held:
                continue
            score = 0.0
            title = entry.title.casefold()
            for i, t in enumerate(terms):
                if not counts[i]:
                    continue
                idf = math.log(1 + total / df[i])
                score += (1 + math.log(counts[i])) * idf
                if t in title or t in name.casefold():
                    score += idf  # a page named after the term is the page about it
            scored.append((score, held, name, entry))
        if not scored:
            return []
        best = max(held for _, held, _, _ in scored)
        if best == len(terms):
            scored = [s for s in scored if s[1] == len(terms)]
        scored.sort(key=lambda s: (-s[1], -s[0], s[2]))
        return [
            FileHit(name, entry.title, score, _snippets(entry.text, terms), entry.stamp[0])
            for score, _, name, entry in scored[:limit]
        ]

    def _load(self, name: str, stamp: tuple[int, int]) -> _Entry | None:
        if stamp[1] > MAX_FILE_BYTES:
            return None  # too big to be a page of notes; not searched
        try:
            text = (self.store.root / name).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None  # deleted between the walk and the read
        return _Entry(stamp, text, text.casefold(), title_of(name, text))


def _snippets(text: str, terms: list[str]) -> tuple[tuple[int, str], ...]:
    out: list[tuple[int, str]] = []
    in_front_matter = text.startswith("---")
    for number, line in enumerate(text.splitlines(), start=1):
        if in_front_matter:
            in_front_matter = not (number > 1 and line.strip() == "---")
            continue
        if line.startswith("<!-- strata:"):
            continue
        folded = line.casefold()
        if any(t in folded for t in terms):
            out.append((number, clip(line.strip(), SNIPPET_CHARS)))
            if len(out) == MAX_SNIPPETS:
                break
    return tuple(out)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
