"""What the single counts save: CPU time of the Memory screen's load (one grouped scan plus two
counts, against `stats()` plus the two scans it replaced) and of the first-run check
(`has_messages()` against `stats()`), interleaved in one process on a data dir of N messages.

    python tests/benchmarks/bench_screen_counts.py [--n 20000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from sqlalchemy import func, select

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import RawMessageRow
from app.services.tier_history import tier_overview
from tests.benchmarks.bench_change_marker import NOW, messages


def separate_scans(db: Any, user: str) -> None:
    """The Memory screen before: per-tier totals and the whole-history chart as two grouped scans."""
    archived = RawMessageRow.archived_at.is_not(None)
    with db.read() as session:
        session.execute(
            select(RawMessageRow.memory_stage, archived, func.count())
            .where(RawMessageRow.user_id == user)
            .group_by(RawMessageRow.memory_stage, archived)
        ).all()
    tier_overview(db, user)  # the chart's scan, which now also feeds the totals


def cpu_ms(call: Callable[[], object]) -> float:
    started = time.process_time()
    call()
    return (time.process_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(provider="hashing"))
        services = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
        services.processor.backlog.autostart = False  # the vectors are not what is measured
        services.memory.ingest(messages(args.n), defer_embedding=True)
        memory, db, user = services.memory, services.db, settings.user_id
        pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
            "Memory screen load": (
                lambda: (memory.stats(), separate_scans(db, user)),
                lambda: (memory.pinned_and_summaries(), tier_overview(db, user)),
            ),
            "first-run check": (memory.stats, memory.has_messages),
        }
        for name, (before, after) in pairs.items():
            before(), after()  # warm the page cache, as the running app has it
            old, new = [], []
            for _ in range(args.rounds):  # interleaved, so the machine's load hits both alike
                old.append(cpu_ms(before))
                new.append(cpu_ms(after))
            b, a = statistics.median(old), statistics.median(new)
            print(f"{name} at {args.n} messages: CPU median {b:.2f} ms before, {a:.2f} ms now ({b / a:.1f}x)")
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
