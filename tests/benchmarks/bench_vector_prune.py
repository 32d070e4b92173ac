"""Disk per message before and after the old vector-table versions go (`vector_prune`).

    python tests/benchmarks/bench_vector_prune.py DATA_DIR [--swap]

DATA_DIR is changed: give it a copy (e.g. of a `bench_search.py --workdir` data dir). `--swap`
first trains the message index anew, as the background job does after many refreshes (at 1M:
minutes). Then the `index-vectors` job's pruning runs twice, as time would run it, as if right
after a refresh of the message index (the only time the job prunes a kind with an approximate
index: its `optimize` rewrites a freshly built index, which makes searches dearer; see
`IndexService.prune_vector_versions`; the data dir is left in that rewritten state):
  1. now, with the shipped margin (`vector_prune.MARGIN`): only versions replaced that long ago go;
  2. with no margin, which is what the job does once the margin has passed and nothing was
     written since (the disk an idle archive settles at).
Each step prints the data dir's size a message, the versions left and the wall and CPU time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def show(label: str, data_dir: Path, messages: int, services: Any) -> None:
    total, vectors = du(data_dir), du(data_dir / "vectors.lance")
    versions = services.processor.corpus.collection.version_count()
    print(
        f"  {label}: {total / 2**20:,.0f} MB, {total / messages / 1024:.2f} KB a message "
        f"(vectors and indexes {vectors / messages / 1024:.2f} KB); message table versions {versions}; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def timed(label: str, work: Callable[[], Any]) -> Any:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    print(f"  {label}: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--swap", action="store_true", help="train the message index anew first")
    args = parser.parse_args()
    if not (args.data_dir / "strata.sqlite3").exists():
        raise SystemExit(f"{args.data_dir} is not a Strata data dir (no strata.sqlite3); give a copy of one")
    services = build_services(Settings(data_dir=args.data_dir, embedding=EmbeddingSettings()))
    with services.db.read() as session:
        messages = int(session.execute(text("SELECT count(*) FROM raw_messages")).scalar_one())
    print(f"{args.data_dir}: {messages:,} messages")
    show("as found", args.data_dir, messages, services)
    if args.swap:
        timed("index trained anew", services.processor.corpus.ann().build)
        show("after the swap", args.data_dir, messages, services)
    index = services.index
    refreshed = {"messages"}
    done = timed(f"prune, margin {index.prune_margin}", lambda: index.prune_vector_versions(refreshed))
    print(f"    kinds pruned: {sorted(done)}")
    show("after the job's next run", args.data_dir, messages, services)
    index.prune_margin = timedelta(0)
    done = timed(
        "prune, margin 0 (once the margin has passed)", lambda: index.prune_vector_versions(refreshed)
    )
    print(f"    kinds pruned: {sorted(done)}")
    show("settled", args.data_dir, messages, services)
    services.close()


if __name__ == "__main__":
    main()
