"""Two checkouts' searches in lockstep on one archive: wall, CPU and top 10s, query by query.

A code change to the search path cannot be put beside the old code in one process, and on a
shared machine two runs one after the other see different loads. Here two worker processes
(this tree, and `--code-root`'s) open the same data dir; the parent asks each in turn to search
the same question (query cache emptied first, so both embed it), alternating which goes first,
and prints each side's wall and CPU p50 / p95, the paired ratios, and how many top 10s (ids and
scores) are identical.

    python tests/benchmarks/bench_search_ab.py --data-dir COPY --code-root OTHER-CHECKOUT
        [--queries 98] [--rounds 2] [--filters] [--threads N] [--switch-interval S]

`--threads` (the local model's intra-op threads) and `--switch-interval` (`sys.setswitchinterval`)
apply to this tree's side only: the same code with another setting, against `--code-root` as it is.
COPY is a copy of an archive (`cp -a`; searches record access counts). Run with the load noted:
the ratio is the figure, not either side's milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve(root: Path, data_dir: Path, switch_interval: float | None) -> None:
    """Worker: read `[text, filter-index]` lines on stdin, answer one JSON line each."""
    sys.path.insert(0, str(root))
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    from app.bootstrap import build_services
    from app.core.embeddings.factory import build_embedder
    from app.core.settings import EmbeddingSettings, Settings
    from tests.benchmarks import locomo_corpus
    from tests.benchmarks.bench_search_timeline import clear_query_cache

    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="local"))
    threads = int(os.environ.get("BENCH_AB_THREADS", "0")) or None
    services = build_services(settings, embedder=build_embedder(settings.embedding, threads=threads))
    filters = _filters()
    for n, q in enumerate(locomo_corpus.queries(98)[:12]):
        services.memory.search(q + " warmup", filters[n % len(filters)], limit=10)
    embedder = services.memory.searcher.embedder
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        text, which = json.loads(line)
        clear_query_cache(embedder)
        started, cpu = time.perf_counter(), time.process_time()
        hits = services.memory.search(text, filters[which], limit=10)
        wall, spent = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
        top = [[h.id, round(h.score, 6)] for h in hits]
        print(json.dumps({"wall": wall, "cpu": spent, "top": top}), flush=True)
    services.close()


def _filters() -> list[Any]:
    from app.core.domain import SearchFilters

    return [
        SearchFilters(),
        SearchFilters(platforms=("slack",)),
        SearchFilters(channels=("group-3", "team-7")),
        SearchFilters(persons=("Caroline",)),
    ]


def _start(args: argparse.Namespace, root: Path, *, mine: bool) -> subprocess.Popen[str]:
    """A worker process searching with `root`'s code (this tree's side gets the knobs)."""
    knobs = ["--switch-interval", str(args.switch_interval)] if mine and args.switch_interval else []
    command = [sys.executable, __file__, "--data-dir", str(args.data_dir), "--code-root", str(root)]
    return subprocess.Popen(
        [*command, "--serve", str(root), *knobs],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "BENCH_AB_THREADS": str(args.threads if mine else 0)},
        text=True,
        cwd=root,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--code-root", type=Path, required=True, help="the other checkout (e.g. main)")
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--filters", action="store_true", help="every other search filtered (3 kinds)")
    parser.add_argument("--threads", type=int, default=0, help="this side's local model intra-op threads")
    parser.add_argument("--serve", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--switch-interval", type=float, default=None, help="this side's GIL switch interval")
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.data_dir, args.switch_interval)
        return 0
    sys.path.insert(0, str(ROOT))
    from tests.benchmarks import locomo_corpus

    if not locomo_corpus.available():
        print("skipped: the LoCoMo data (../shared/data) is missing")
        return 0
    sides = {"this": ROOT, "other": args.code_root.resolve()}
    workers = {name: _start(args, root, mine=name == "this") for name, root in sides.items()}
    for worker in workers.values():
        assert worker.stdout is not None
        json.loads(worker.stdout.readline())

    def ask(name: str, text: str, which: int) -> dict[str, Any]:
        worker = workers[name]
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(json.dumps([text, which]) + "\n")
        worker.stdin.flush()
        answer: dict[str, Any] = json.loads(worker.stdout.readline())
        return answer

    queries = locomo_corpus.queries(98)[: args.queries]
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    print(f"load average at the start {os.getloadavg()[0]:.1f}")
    for round_ in range(args.rounds):
        for n, q in enumerate(queries):
            which = (1 + n % 3) if args.filters and n % 2 else 0
            order = ["this", "other"] if (n + round_) % 2 == 0 else ["other", "this"]
            for name in order:
                found[name].append(ask(name, q, which))
    for worker in workers.values():
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
    print(f"{len(found['this'])} searches a side, load average at the end {os.getloadavg()[0]:.1f}")
    for name in sides:
        walls = [a["wall"] for a in found[name]]
        cpus = [a["cpu"] for a in found[name]]
        print(
            f"  {name:5s} ({sides[name]}): wall p50 {statistics.median(walls):.1f} ms, "
            f"p95 {percentile(walls, 0.95):.1f} ms; CPU p50 {statistics.median(cpus):.1f} ms, "
            f"mean {statistics.mean(cpus):.1f} ms"
        )
    pairs = list(zip(found["this"], found["other"], strict=True))
    wall_ratio = statistics.median(a["wall"] / b["wall"] for a, b in pairs)
    cpu_ratio = statistics.median(a["cpu"] / max(b["cpu"], 1e-3) for a, b in pairs)
    same = sum(a["top"] == b["top"] for a, b in pairs)
    same_ids = sum([h[0] for h in a["top"]] == [h[0] for h in b["top"]] for a, b in pairs)
    print(f"  this / other, median of paired ratios: wall {wall_ratio:.3f}, CPU {cpu_ratio:.3f}")
    print(f"  identical top 10: {same} of {len(pairs)} (ids and scores), {same_ids} of {len(pairs)} (ids)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
