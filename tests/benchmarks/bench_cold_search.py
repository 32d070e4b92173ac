"""The first search after an idle release, in process: its wall and CPU, and a timeline of what it reloads.

Services are built on `--data-dir` (read, plus the access counts a search writes; use a copy),
warmed with two searches, then `release_idle` drops what an idle host drops (model, copies,
LanceDB, the row-id map, the mapped files) and a search with a query not seen before runs: the
timeline shows, per thread, when each reload ran and its thread CPU (model load, the copies'
loads, the row-id map, the faiss index and vector file mappings, people, the keyword leg). The
same query searched again afterwards must give the same top 10 (ids and scores to 1e-9).
`--rounds` repeats release + cold search with a new query each time.

    python tests/benchmarks/bench_cold_search.py --data-dir COPY [--rounds 3] [--root OTHER_CHECKOUT]

`--root` imports another checkout's `app` (a before/after; its wrapped functions that do not
exist there are left out). The CPU
figures depend little on the machine's load; the wall figures do (note `uptime`).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if "--root" in sys.argv:  # another checkout's `app` (a before/after), imported instead of this one
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
sys.path.insert(0, str(ROOT))

WRAPPED = [
    ("app.core.storage.vector_cache", "VectorMatrixCache", "_prepare", "copy load"),
    ("app.core.storage.vector_rowids", "RowIds", "_build", "row-id map build"),
    ("app.core.embeddings.onnx_minilm", "OnnxMiniLMEmbedder", "load", "model load"),
    ("app.core.index.faiss_leg", "FaissLeg", "_open", "faiss index open"),
    ("app.core.storage.vector_file", "Mapped", "__init__", "vector file map"),
    ("app.core.search.people", "PeopleDirectory", "_load", "people"),
    ("app.core.search.messages", "MessageSearcher", "_keyword_and_vectors", "keyword leg"),
    ("app.core.search.messages", "MessageSearcher", "_key_leg", "key leg"),
]
events: list[tuple[str, str, float, float, float]] = []
recording = threading.Event()
t0 = [0.0]


def wrap(module: str, owner: str, name: str, label: str) -> None:
    """Record (thread, label, start, end, thread CPU) of every call while `recording` is set."""
    cls = getattr(__import__(module, fromlist=[owner]), owner)
    raw = cls.__dict__.get(name)
    if raw is None:
        return
    static = isinstance(raw, staticmethod)
    func = raw.__func__ if static else raw

    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if not recording.is_set():
            return func(*args, **kwargs)
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return func(*args, **kwargs)
        finally:
            end = time.perf_counter()
            events.append(
                (threading.current_thread().name, label, start - t0[0], end - t0[0], time.thread_time() - cpu)
            )

    setattr(cls, name, staticmethod(timed) if static else timed)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app runs (before/after)")
    args = parser.parse_args()
    for spec in WRAPPED:
        wrap(*spec)
    from app.bootstrap import build_services
    from app.core import memory_trim
    from app.core.settings import load_settings
    from app.services.idle_release import release_idle

    memory_trim.limit_arenas(2)  # as the scheduler host does
    services = build_services(load_settings(args.data_dir))
    for query in ("hiking trip with my sister", "what did Caroline say about adoption"):
        services.memory.search(query, limit=10)
    walls, cpus, same = [], [], 0
    for round_ in range(args.rounds):
        release_idle(services, 1, 1, now=time.monotonic() + 10)
        memory_trim.release()
        time.sleep(1)
        query = f"what instruments does Melanie play {round_}"
        events.clear()
        recording.set()
        t0[0], cpu = time.perf_counter(), time.process_time()
        cold = services.memory.search(query, limit=10)
        wall, cpu = time.perf_counter() - t0[0], time.process_time() - cpu
        time.sleep(0.5)  # a background load still running shows in the timeline
        recording.clear()
        warm = services.memory.search(query, limit=10)
        identical = [(h.id, round(h.score, 9)) for h in cold] == [(h.id, round(h.score, 9)) for h in warm]
        same += identical
        walls.append(wall)
        cpus.append(cpu)
        print(f"round {round_ + 1}: cold search {wall:.3f} s wall, {cpu:.3f} s CPU; same top 10: {identical}")
        for thread, label, start, end, thread_cpu in sorted(events, key=lambda e: e[2]):
            print(
                f"  {thread[:20]:20} {label:18} {start:6.3f} -> {end:6.3f} s  thread CPU {thread_cpu:.3f} s"
            )
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(
        f"{args.root}: median of {args.rounds}: {statistics.median(walls):.3f} s wall, "
        f"{statistics.median(cpus):.3f} s CPU; "
        f"{same} of {args.rounds} identical; load {load}"
    )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
