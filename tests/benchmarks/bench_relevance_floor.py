"""Calibrating the relevance floor for the local model: nonsense queries vs LoCoMo's real questions.

Every LoCoMo turn is imported (as bench_locomo.py does); then, with the floor off (`loose`):
- nonsense queries (made-up strings and unrelated word triples) record their best hit's relevance;
- LoCoMo's questions record the relevance of each evidence turn found in their top 10.
For each candidate floor the table shows the share of nonsense queries left with no hit and the
share of found evidence the floor would hide. The default (`search.relevance_floor`) is the lowest
floor that empties ≥ 95 % of nonsense queries.

    python tests/benchmarks/bench_relevance_floor.py [--workdir DIR] [--query-activations int8|float]
        [--variant relevance.cosine_low=0.16]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.bench_locomo import with_field
from tests.benchmarks.locomo_data import DATA, load

# Words unlikely in personal chat, combined in threes ("xylophone quantum zebra").
ODD_WORDS = """xylophone quantum zebra tungsten isotope pangolin heliotrope sarcophagus trombone
nebula obsidian mongoose viaduct gyroscope platypus zeppelin quasar marzipan cuttlefish anvil
abacus catapult fjord glacier harpsichord iguana jackal kiln lichen manatee narwhal oboe
periscope quill rhubarb sextant tapir ukulele vortex walrus yodel ziggurat""".split()  # noqa: SIM905
FLOORS = (0.20, 0.25, 0.28, 0.30, 0.32, 0.35, 0.40)


def nonsense_queries(n: int = 100, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    made_up = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9))) for _ in range(n // 2)
    ]
    triples = [" ".join(rng.sample(ODD_WORDS, 3)) for _ in range(n - n // 2)]
    return made_up + triples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, default=None, help="reuse an imported data dir")
    parser.add_argument(
        "--query-activations", default="float", choices=["int8", "float"], help="embedding.query_activations"
    )
    parser.add_argument("--variant", default=None, help="SearchConfig fields for the run (bench_locomo.py)")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-floor-"))
    embedding = EmbeddingSettings(provider="local", query_activations=args.query_activations)
    services = build_services(Settings(data_dir=workdir, embedding=embedding))
    if args.variant:
        searcher = services.memory.searcher
        searcher.config = with_field(searcher.config, args.variant)
    print(f"{args.query_activations} queries; {args.variant or 'default settings'}")
    messages, questions = load()
    services.memory.ingest(messages)
    best_nonsense = []
    for query in nonsense_queries():
        hits = services.memory.search(query, limit=1, loose=True)
        best_nonsense.append(hits[0].relevance or 0.0 if hits else 0.0)
    evidence: list[float] = []
    for q in questions:
        for hit in services.memory.search(q.text, limit=10, loose=True):
            if hit.message_id in q.evidence:
                evidence.append(hit.relevance or 0.0)
    print(f"{len(best_nonsense)} nonsense queries, {len(evidence)} evidence hits in LoCoMo top 10")
    print(f"{'floor':>6}{'nonsense with 0 hits':>22}{'evidence hidden':>18}")
    for floor in FLOORS:
        empty = sum(r < floor for r in best_nonsense) / len(best_nonsense)
        hidden = sum(r < floor for r in evidence) / len(evidence)
        print(f"{floor:>6.2f}{empty:>22.1%}{hidden:>18.1%}")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
