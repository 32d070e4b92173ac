"""What instance evidence for list questions costs a search: CPU per query, interleaved.

Over an imported LoCoMo workdir, every list question that names people and asks for a kind of
thing ("Which cities has John been to?") is searched three ways in turn, query by query: instance
evidence off (`list_instances=0`), on with the word-vector cache emptied first (a first search:
every word embedded), and on with the cache warm. Each question is searched once untimed first,
so all three reuse its cached query embeddings. CPU is the process's (all threads), so the
figures hold under load; wall times are printed too but depend on the machine.

    python tests/benchmarks/bench_list_instances.py --workdir DIR [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.search.questions import asked_category, asks_for_list
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.locomo_data import DATA, load


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True, help="an imported LoCoMo data dir")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    services = build_services(Settings(data_dir=args.workdir, embedding=EmbeddingSettings(provider="local")))
    messages, questions = load()
    services.memory.ingest(messages)
    searcher = services.memory.searcher
    user = services.memory.user_id
    asked = [
        q.text
        for q in questions
        if asks_for_list(q.text) and asked_category(q.text) and searcher.people.mentions(user, q.text).persons
    ]
    services.memory.search(asked[0])  # loads the model and the in-memory copies
    default = searcher.config
    off = replace(default, list_instances=0)
    cpu: dict[str, list[float]] = {"off": [], "cold": [], "warm": []}
    wall: dict[str, list[float]] = {k: [] for k in cpu}
    orders = [("off", "cold", "warm"), ("cold", "warm", "off"), ("warm", "off", "cold")]
    for round_ in range(args.rounds):
        for n, text in enumerate(asked):
            # Untimed first: the query embeddings are cached (int8_queries), and the words warm.
            searcher.config = default
            services.memory.search(text, limit=10)
            for label in orders[(n + round_) % 3]:
                searcher.config = off if label == "off" else default
                if label == "cold":
                    searcher.instances = type(searcher.instances)(searcher.embedder)
                started, clock = time.process_time(), time.perf_counter()
                services.memory.search(text, limit=10)
                cpu[label].append(1000 * (time.process_time() - started))
                wall[label].append(1000 * (time.perf_counter() - clock))
    searcher.config = default
    print(
        f"{len(asked)} list questions asking for a kind, {args.rounds} rounds; load {os.getloadavg()[0]:.1f}"
    )
    for label in cpu:
        mean, median = statistics.mean(cpu[label]), statistics.median(cpu[label])
        print(
            f"  {label:<5} CPU mean {mean:6.1f} ms, median {median:6.1f};"
            f" wall median {statistics.median(wall[label]):6.1f} ms"
        )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
