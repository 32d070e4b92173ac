"""Search latency while another process imports 5,000 messages, against the same search idle.

Before the indexed corpus, every CLI start ran the vector repair and re-embedded rows another
live process was still writing: `strata search` took 8-62 s during two concurrent imports. Now
opening never repairs and repair waits for live writers' leases; this prints, for the same
queries, in-process search p50/p95 idle and during a real `strata import jsonl` subprocess, and
the wall time of whole `strata search` CLI invocations idle and during the import.

    python tests/benchmarks/bench_search_concurrent.py [--base 5000] [--import-size 5000]
        [--embedder local|hashing] [--cli-runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks import synthetic
from tests.benchmarks.bench_search import percentile

PROJECT = Path(__file__).resolve().parents[2]


def timed_searches(services, queries: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for q in queries:
        started = time.perf_counter()
        services.memory.search(q, limit=10)
        out.append((time.perf_counter() - started) * 1000)
    return out


def cli_search(env: dict[str, str], query: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "app.cli.main", "search", query, "--json"],
        env=env, cwd=PROJECT, check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=int, default=5000)
    parser.add_argument("--import-size", type=int, default=5000)
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    parser.add_argument("--cli-runs", type=int, default=3)
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="strata-bench-concurrent-"))
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider=args.embedder))
    services = build_services(settings)
    started = time.perf_counter()
    services.memory.ingest(synthetic.messages(args.base, seed=1))
    print(f"base archive: {args.base} messages in {time.perf_counter() - started:.0f}s")
    incoming = data_dir.parent / f"{data_dir.name}-import.jsonl"
    with incoming.open("w", encoding="utf-8") as out:
        for m in synthetic.messages(args.import_size, seed=2):
            row = {"platform": m.platform, "message_id": m.message_id, "channel": m.channel,
                   "person": m.person, "timestamp": m.timestamp, "content": m.content}  # fmt: skip
            out.write(json.dumps(row) + "\n")
    queries = [f"{q} {s}" for s in ("", "now", "team") for q in synthetic.QUERIES]
    timed_searches(services, [q + " warmup" for q in queries[:10]])
    env = {**os.environ, "STRATA_DATA_DIR": str(data_dir), "STRATA_EMBEDDING__PROVIDER": args.embedder}

    idle = timed_searches(services, queries)
    idle_cli = [cli_search(env, q) for q in queries[: args.cli_runs]]
    print(f"load before: {os.getloadavg()}")
    importer = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "import", "jsonl", str(incoming)],
        env=env, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(3)  # let the import get going (its start-up is not the point)
    busy: list[float] = []
    busy_cli: list[float] = []
    rounds = 0
    while importer.poll() is None:
        busy += timed_searches(services, queries)
        if len(busy_cli) < args.cli_runs:
            busy_cli.append(cli_search(env, queries[len(busy_cli)]))
        rounds += 1
    print(f"load during: {os.getloadavg()}; import exit {importer.returncode}, {rounds} rounds of queries")
    stats = services.memory.stats()
    services.close()
    print(f"after import: {stats['messages']} messages, {stats['vectors']} vectors")
    for name, values in (("idle", idle), ("during import", busy)):
        print(
            f"in-process search {name}: {len(values)} queries, p50 {statistics.median(values):.1f} ms, "
            f"p95 {percentile(values, 0.95):.1f} ms"
        )
    print(f"p95 ratio during/idle: {percentile(busy, 0.95) / percentile(idle, 0.95):.2f} (goal <= 2)")
    print(f"`strata search` wall idle: {', '.join(f'{t:.1f}s' for t in idle_cli)}")
    print(f"`strata search` wall during import: {', '.join(f'{t:.1f}s' for t in busy_cli)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
