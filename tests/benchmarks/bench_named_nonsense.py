"""Nonsense that names a person: how often does the relevance floor still return hits?

The precision set's unrelated queries name nobody. A query naming someone the archive knows
("What did Caroline say about zzqxv?") is judged without the name's words, but its question frame
("what did … say about") and the name's pull on the query vector remain. Over an imported LoCoMo
workdir, nonsense and unrelated words are asked about five of its people in five question shapes
(250 queries); each should find nothing.

    python tests/benchmarks/bench_named_nonsense.py --workdir DIR [--variant FIELD=VALUE,...]...
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.bench_locomo import parse_variant

PEOPLE = ("Caroline", "Jon", "Maria", "Nate", "Tim")
WORDS = (
    "zzqxv",
    "blorf",
    "flurbo",
    "quibnix",
    "xylophone quantum",
    "penguin migration",
    "opera tickets",
    "tax audit",
    "submarine",
    "lithium mining",
)
SHAPES = (
    "What did {p} say about {w}?",
    "Which {w}s has {p} got?",
    "How many {w}s does {p} have?",
    "{w} {p}",
    "Did {p} ever mention the {w}?",
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True, help="an imported LoCoMo data dir")
    parser.add_argument(
        "--variant", action="append", default=[], help="SearchConfig fields, e.g. list_pool=0"
    )
    parser.add_argument(
        "--query-activations", default="float", choices=["int8", "float"], help="embedding.query_activations"
    )
    args = parser.parse_args()
    if not (args.workdir / "strata.sqlite3").exists():
        print(f"skipped: no imported archive in {args.workdir} (run bench_locomo.py --workdir first)")
        return 0
    embedding = EmbeddingSettings(provider="local", query_activations=args.query_activations)
    services = build_services(Settings(data_dir=args.workdir, embedding=embedding))
    searcher = services.memory.searcher
    default = searcher.config
    for label in ["default", *args.variant]:
        searcher.config = default if label == "default" else replace(default, **parse_variant(default, label))
        empty = {shape: 0 for shape in SHAPES}
        first: list[str] = []
        cpu = time.process_time()
        for person in PEOPLE:
            for word in WORDS:
                for shape in SHAPES:
                    query = shape.format(p=person, w=word)
                    hits = services.memory.search(query, limit=10)
                    if not hits:
                        empty[shape] += 1
                    elif len(first) < 5:
                        first.append(f"{query!r} -> {hits[0].relevance:.2f} {hits[0].content[:60]!r}")
        total = len(PEOPLE) * len(WORDS) * len(SHAPES)
        per_query = 1000 * (time.process_time() - cpu) / total
        print(
            f"== {label}: {sum(empty.values())} of {total} with no hit; CPU {per_query:.1f} ms a query"
            f" (load {os.getloadavg()[0]:.1f})"
        )
        for shape, n in empty.items():
            print(f"  {shape:<32}{n:>4} of {len(PEOPLE) * len(WORDS)}")
        for line in first:
            print(f"  e.g. {line}")
    searcher.config = default
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
