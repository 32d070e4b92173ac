"""What stays in memory after cycles of mixed use, in-process: searches, an import, an insight run
and a forgetting run, each cycle followed by the idle release and `malloc_trim`.

A copy of `--data-dir` is opened (never modified) without a shell or jobs. After each cycle it
prints RSS split into anonymous memory and mapped files, Python's allocated blocks and the module
count; with `--trace`, tracemalloc's largest new Python allocations over the second cycle (what
Python objects stay; the rest of any growth is native memory).

    python tests/benchmarks/bench_memory_cycles.py --data-dir DIR [--cycles 3] [--trace] [--regions]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core import memory_trim

memory_trim.limit_arenas(2)  # as the scheduler host does, before any library starts a thread

from app.bootstrap import build_services  # noqa: E402
from app.core.domain import RawMessage  # noqa: E402
from app.core.settings import load_settings  # noqa: E402
from app.services.idle_release import release_idle  # noqa: E402
from tests.benchmarks import anon_regions, synthetic  # noqa: E402
from tests.benchmarks.bench_idle_rss import memory  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--trace", action="store_true", help="tracemalloc over the second cycle")
    parser.add_argument("--regions", action="store_true", help="anonymous memory by kind of mapping")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="strata-cycles-"))
    data_dir = scratch / "data"
    subprocess.run(["cp", "-a", str(args.data_dir), str(data_dir)], check=True)
    services = build_services(load_settings(data_dir))

    def settle(label: str) -> None:
        release_idle(services, 1, 1, now=time.monotonic() + 10_000, drop_pages=True)
        gc.collect()
        memory_trim.release()
        print(
            f"{label}: {memory()}; blocks {sys.getallocatedblocks()}, modules {len(sys.modules)}", flush=True
        )
        if args.regions:
            print(anon_regions.summary(os.getpid(), top=4), flush=True)

    def cycle(i: int) -> None:
        cpu = time.process_time()
        for query in synthetic.QUERIES[:6]:
            services.memory.search(f"{query} {i}")
        fresh = synthetic.messages(200, seed=20_000 + i, start_ms=1_760_000_000_000)
        services.memory.ingest(
            [
                RawMessage(platform=m.platform, message_id=f"cycle-{i}-{m.message_id}", channel=m.channel,
                           person=m.person, timestamp=m.timestamp, content=m.content)
                for m in fresh
            ]
        )  # fmt: skip
        searched = time.process_time()
        report = services.insights.generate(limit=2000)
        generated = time.process_time()
        services.forgetting.run(services.settings.user_id)
        print(
            f"cycle {i + 1}: searches + import {searched - cpu:.1f} s CPU, "
            f"insights {generated - searched:.1f} s "
            f"({report.analysed} new, {report.messages_read} read, {report.updated} updated), forgetting "
            f"{time.process_time() - generated:.1f} s",
            flush=True,
        )

    try:
        settle("services built")
        services.memory.search("warm up")
        settle("after one search and the release")
        for i in range(args.cycles):
            tracing = args.trace and i == 1
            if tracing:
                tracemalloc.start(6)
                before = tracemalloc.take_snapshot()
            cycle(i)
            settle(f"after cycle {i + 1} and the release")
            if tracing:
                for stat in tracemalloc.take_snapshot().compare_to(before, "traceback")[:6]:
                    print(f"  {stat}")
                tracemalloc.stop()
        services.close()
    finally:
        subprocess.run(["rm", "-rf", str(scratch)], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
