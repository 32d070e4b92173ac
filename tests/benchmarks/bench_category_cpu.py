"""CPU per search with and without a SearchConfig change, interleaved query by query (issue 12).

Made for `category_words` (the WordNet kind signal): it only runs for category questions, so the
figure that matters for REST is what it adds to the other queries. The data dir is searched as
it is (no import): LoCoMo's own import, or the 100k archive `bench_search.py --corpus locomo`
grows. LoCoMo's questions are split by `questions.asked_category` (a category question or not);
each is searched once per arm, the arms alternating which goes first, and the process's CPU
time (all its threads) is summed per arm. Also prints the RSS before and after the first
category question (the WordNet table's load).

    python tests/benchmarks/bench_category_cpu.py --workdir DIR [--compare category_words=10]
        [--base category_words=0] [--rounds 3]
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
from app.core.search.questions import asked_category
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.bench_locomo import parse_variant
from tests.benchmarks.locomo_data import DATA, load


def rss_mb() -> float:
    """Resident set size now (Linux /proc), MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--workdir",
        type=Path,
        required=True,
        help="an imported LoCoMo data dir (or a grown one, bench_search.py)",
    )
    parser.add_argument("--compare", default="category_words=10", help="FIELD=VALUE[,…] of SearchConfig")
    parser.add_argument("--base", default="category_words=0", help="the other arm's fields ('' = defaults)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    services = build_services(Settings(data_dir=args.workdir, embedding=EmbeddingSettings(provider="local")))
    _, questions = load()  # the questions only: the data dir is searched as it is
    searcher = services.memory.searcher
    default = searcher.config
    arms = {
        "base": replace(default, **parse_variant(default, args.base)) if args.base else default,
        "compare": replace(default, **parse_variant(default, args.compare)),
    }
    texts = list(dict.fromkeys(q.text for q in questions))
    kinds = {
        "category": [t for t in texts if asked_category(t)],
        "other": [t for t in texts if not asked_category(t)],
    }
    searcher.config = arms["base"]
    services.memory.search(kinds["other"][0], limit=10)  # warm: the in-memory copy, the model
    before = rss_mb()
    searcher.config = arms["compare"]
    services.memory.search(kinds["category"][0], limit=10)
    print(
        f"RSS {before:.1f} MB before the first category question with {args.compare}, {rss_mb():.1f} MB after"
    )
    cpu = {(kind, arm): 0.0 for kind in kinds for arm in arms}
    for r in range(args.rounds):
        for kind, batch in kinds.items():
            for i, text in enumerate(batch):
                order = list(arms) if (i + r) % 2 == 0 else list(arms)[::-1]
                for arm in order:
                    searcher.config = arms[arm]
                    started = time.process_time()
                    services.memory.search(text, limit=10)
                    cpu[kind, arm] += time.process_time() - started
    searcher.config = default
    load_avg = os.getloadavg()[0]
    print(
        f"base: {args.base or 'defaults'}; compare: {args.compare}; {args.rounds} rounds; load {load_avg:.1f}"
    )
    for kind, batch in kinds.items():
        n = len(batch) * args.rounds
        base, other = 1000 * cpu[kind, "base"] / n, 1000 * cpu[kind, "compare"] / n
        print(
            f"  {kind:<9}{len(batch):>5} questions: CPU {base:.2f} -> {other:.2f} ms a search "
            f"({other - base:+.2f} ms, ratio {other / base:.3f})"
        )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
