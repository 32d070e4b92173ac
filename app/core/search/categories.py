"""Which words name a kind of what a question asks for ("activities" ~ "swimming"), by WordNet's is-a links.

MiniLM links concrete categories to their instances ("city" ~ "Chicago", instances.py) but not
abstract ones: "activity" ~ "swimming" is 0.44 and "activity" ~ "pottery" 0.30, below unrelated
words such as "class". WordNet 3.0 says "swimming" is a kind of "sport", itself a kind of
"activity". A word counts when its *first* (most frequent) noun sense lies under the category
and it is no likelier a verb or adjective than a noun: "thanks" and "look" have activity
senses, but not as their usual meaning.

The app ships that much of WordNet as a table (`resources/wordnet/kinds.npz`, ~1 MB, Princeton's
licence beside it; built by wordnet_build.py), read on the first category question: ~3.5 MB of
NumPy arrays, no Python object per word. A category costs one walk of its hyponyms, level by
level (cached); a question's words cost one sorted search together.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.core.paths import resource_path

# A category with more synsets below it is no kind of anything ("entity", "object", "whole",
# "unit", "abstraction": 31k-82k); "activity" has ~4,000, "event" ~7,700.
MAX_SYNSETS = 20_000
_ARRAYS = ("lemmas", "sense_start", "senses", "first", "child_start", "children")


def table_path() -> Path:
    """The shipped table (resources/wordnet/kinds.npz)."""
    return resource_path("wordnet", "kinds.npz")


class CategoryWords:
    """WordNet's kinds of a category noun, judged word by word; thread-safe, lazily loaded."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path or table_path()
        self._lock = threading.Lock()
        self._opened = False
        self._t: dict[str, np.ndarray] = {}

    @property
    def available(self) -> bool:
        self._open()
        return bool(self._t)

    def _open(self) -> None:
        with self._lock:
            if self._opened:
                return
            self._opened = True
            if not self._path.is_file():
                return
            # `offsets` (WordNet's own synset numbers) stays in the file: only tests read it.
            with np.load(self._path, allow_pickle=False) as table:
                self._t = {name: table[name] for name in _ARRAYS}

    def _rows(self, lemmas: list[str]) -> np.ndarray:
        """Each lemma's row in the table, -1 when it is no WordNet noun."""
        lemmas_ = self._t["lemmas"]
        keys = np.array([w.encode("ascii", "replace") for w in lemmas], dtype=lemmas_.dtype)
        at = np.searchsorted(lemmas_, keys)
        at[at >= len(lemmas_)] = 0
        # A lemma longer than the table's widest is cut by the dtype: it must not match that prefix.
        exact = (lemmas_[at] == keys) & np.array([len(w) <= lemmas_.itemsize for w in lemmas], dtype=bool)
        return np.where(exact, at, -1)

    def _below(self, category: str) -> np.ndarray:
        """A mask over the synsets: those below any noun sense of `category` (empty when unknown)."""
        return self._below_cached(category.lower())

    @lru_cache(maxsize=256)  # noqa: B019 (one instance per searcher; 82 KB per category)
    def _below_cached(self, category: str) -> np.ndarray:
        starts, children = self._t["child_start"], self._t["children"]
        seen = np.zeros(len(starts) - 1, dtype=bool)
        row = int(self._rows([category])[0])
        if row < 0:
            return seen
        own = self._t["senses"][self._t["sense_start"][row] : self._t["sense_start"][row + 1]]
        # The category's own senses are not kinds of it ("activity" is no answer to "activities"),
        # unless one lies below another.
        frontier = _children(starts, children, own)
        while frontier.size:
            frontier = frontier[~seen[frontier]]
            seen[frontier] = True
            frontier = np.unique(_children(starts, children, frontier))
        if seen.sum() > MAX_SYNSETS:
            seen[:] = False
        return seen

    def kinds(self, category: str) -> frozenset[int]:
        """Row numbers of every noun synset under `category`'s senses (empty when unknown)."""
        self._open()
        if not self._t:
            return frozenset()
        return frozenset(np.flatnonzero(self._below(category)).tolist())

    def of_kind(
        self, category: str, words: Iterable[str], *, senses: str = "first", compounds: bool = False
    ) -> set[str]:
        """The `words` (lower-case) whose usual meaning is a kind of `category` (a singular noun).

        `senses="any"` takes any noun sense of the word, "gerund" any sense of words ending in
        "-ing" ("painting": a work of art first, the act of painting too) and the first of the
        others; a word likelier a verb or an adjective never counts. `compounds` judges a word
        WordNet lacks by its last part when both parts are words ("kick|boxing")."""
        self._open()
        if not self._t:
            return set()
        below = self._below(category)
        if not below.any():
            return set()
        pairs = [(word, lemma) for word in words for lemma in _lemmas(word)]
        if not pairs:
            return set()
        rows = self._rows([lemma for _, lemma in pairs])
        first = np.where(rows >= 0, self._t["first"][rows], -1)
        hit = np.zeros(len(pairs), dtype=bool)
        known = first >= 0
        hit[known] = below[first[known]]
        if senses != "first":
            wide = known & ~hit
            if senses == "gerund":
                wide &= np.array([lemma.endswith("ing") for _, lemma in pairs], dtype=bool)
            at = np.flatnonzero(wide)
            if at.size:
                starts = self._t["sense_start"]
                counts = starts[rows[at] + 1] - starts[rows[at]]
                under = below[_children(starts, self._t["senses"], rows[at])]
                # Whether any of each pair's senses is below: a sum per run of `counts`.
                per_pair = np.add.reduceat(under.astype(np.int32), np.cumsum(counts) - counts)
                hit[at] = per_pair > 0
        found = {pairs[i][0] for i in np.flatnonzero(hit)}
        if compounds:
            unknown = {word for word, _ in pairs} - {pairs[i][0] for i in np.flatnonzero(rows >= 0)}
            found |= self._compound_heads(category, unknown)
        return found

    def _compound_heads(self, category: str, words: set[str]) -> set[str]:
        """Words WordNet lacks that split into two words, the last a kind ("kickboxing")."""
        splits = [
            (word, word[:i], word[i:])
            for word in words
            for i in range(3, len(word) - 3)  # both parts at least 3 letters, the head 4
        ]
        if not splits:
            return set()
        rows = self._rows([head for _, _, head in splits] + [left for _, left, _ in splits])
        heads, lefts = rows[: len(splits)], rows[len(splits) :]
        ok = np.flatnonzero((heads >= 0) & (lefts >= 0))
        kinds = self.of_kind(category, {splits[i][2] for i in ok})
        return {splits[i][0] for i in ok if splits[i][2] in kinds}


def _children(starts: np.ndarray, children: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The hyponyms of every synset in `ids`, concatenated (CSR rows gathered at once)."""
    lo, hi = starts[ids], starts[ids + 1]
    sizes = hi - lo
    total = int(sizes.sum())
    if not total:
        return np.empty(0, dtype=children.dtype)
    # Position j of the output reads children[lo[r] + (j - first output position of row r)].
    shift = np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)
    return children[shift + np.arange(total)]


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
