"""The first searches after opening a large archive whose files are not in the page cache, with and
without the start-up page warm-up (`app/services/page_warmup_job.py`).

Each arm runs in a fresh process: the data dir's files are dropped from the page cache
(`POSIX_FADV_DONTNEED`, this copy's files only: it reads nothing and writes nothing), the
services are opened, the warm-up starts in the background as the scheduler's job would (arm
`warm`) or not (arm `cold`), or nothing is dropped (arm `hot`: a fresh process on a page cache
already holding every file), and the LoCoMo questions are searched once, each new to the
process. Printed per arm: wall p50 / p95, CPU p50, major page faults (the mapped faiss index,
vector file and SQLite pages read from disk), and what the warm-up read and cost. Wall time
depends on the machine's load; CPU and page faults much less.

    python tests/benchmarks/bench_first_run.py --data-dir COPY-OF-locomo-bulk-1000000 \
        [--arms cold,warm,hot] [--rounds 2] [--queries 98]

Needs a 1M archive with its faiss index and vector file (`bench_search.py --build bulk`, then
`bench_faiss_leg.py --no-leg` and `bench_vector_file.py`) and `../shared/data` (the questions).
Linux only (page-cache control). Dropping a copy's pages slows anyone else reading that copy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks import locomo_corpus, locomo_data


def drop_page_cache(root: Path) -> int:
    """Drop every file under `root` from the page cache; bytes of the files."""
    total = 0
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        with path.open("rb") as file:
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            total += os.fstat(file.fileno()).st_size
    return total


def one_arm(data_dir: Path, arm: str, queries: int) -> dict:
    """Runs in its own process: open, maybe warm, search every question once."""
    if arm != "hot":
        drop_page_cache(data_dir)
    from app.bootstrap import build_services
    from app.core.domain import SearchFilters
    from app.core.embeddings.factory import build_embedder
    from app.core.settings import load_settings
    from app.services.page_warmup_job import warm_up

    opened = time.perf_counter()
    settings = load_settings(data_dir)
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    warm: dict = {}
    if arm == "warm":

        def job() -> None:
            cpu = time.thread_time()
            warmed = warm_up(services)
            if warmed is not None:
                warm.update(
                    mb=warmed.bytes / 1e6,
                    files=warmed.files,
                    seconds=warmed.seconds,
                    cpu_s=time.thread_time() - cpu,
                    done_after_open_s=time.perf_counter() - opened,
                )

        threading.Thread(target=job, daemon=True).start()
    services.embedder.embed_query("load the model")  # the model is not what this measures
    walls, cpus, faults = [], [], []
    for q in locomo_corpus.queries(98)[:queries]:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        wall, cpu = time.perf_counter(), time.process_time()
        services.memory.search(q, SearchFilters(), limit=10)
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before)
    services.close()
    return {
        "arm": arm,
        "wall_p50": statistics.median(walls),
        "wall_p95": sorted(walls)[int(0.95 * (len(walls) - 1))],
        "cpu_p50": statistics.median(cpus),
        "first_ms": walls[0],
        "major_faults": sum(faults),
        "load": os.getloadavg()[0],
        "warm_up": warm,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--arms", default="cold,warm,hot")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # the child process's arm
    args = parser.parse_args()
    if not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing")
        return 0
    if not hasattr(os, "posix_fadvise"):
        print("skipped: page-cache control needs Linux")
        return 0
    if args.one:
        print(json.dumps(one_arm(args.data_dir, args.one, args.queries)))
        return 0
    arms = args.arms.split(",")
    for round_ in range(args.rounds):
        for arm in arms if round_ % 2 == 0 else arms[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--data-dir", str(args.data_dir), "--one", arm,
                 "--queries", str(args.queries)],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            r = json.loads(out.strip().splitlines()[-1])
            line = (
                f"{r['arm']:5s} wall p50 {r['wall_p50']:6.1f} / p95 {r['wall_p95']:6.1f} ms, CPU p50 "
                f"{r['cpu_p50']:5.1f} ms, first search {r['first_ms']:6.0f} ms, major faults "
                f"{r['major_faults']:6d} (load {r['load']:.1f})"
            )
            if r["warm_up"]:
                w = r["warm_up"]
                line += (
                    f"; warm-up {w['mb']:.0f} MB in {w['files']} files, {w['seconds']:.2f} s, "
                    f"{w['cpu_s']:.2f} s CPU, done {w['done_after_open_s']:.1f} s after opening"
                )
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
