"""What the desktop window's change watcher costs: one `change_marker` call (every 3 s, off the
GUI thread) on a data dir holding N messages, with the time of each kind's query.

    python tests/benchmarks/bench_change_marker.py [--n 20000] [--calls 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from app.bootstrap import build_services
from app.core.clock import DAY_MS, FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.services.change_marker import change_marker

NOW = 1_795_000_000_000


def messages(n: int) -> list[RawMessage]:
    # Spread over two years in 20 channels, so forgetting has old groups to archive.
    return [
        RawMessage(
            platform="slack", message_id=f"m{i}", channel=f"c{i % 20}", person=f"p{i % 37}",
            timestamp=NOW - (730 * DAY_MS * (n - i)) // n, content=f"message {i} about topic {i % 101}",
        )
        for i in range(n)
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(provider="hashing"))
        services = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
        started = time.perf_counter()
        services.memory.ingest(messages(args.n))
        print(f"ingested {args.n} messages in {time.perf_counter() - started:.1f} s")
        user = settings.user_id
        change_marker(services.db, user)  # warm the page cache, as the running window has it
        times = []
        for _ in range(args.calls):
            t0 = time.perf_counter()
            change_marker(services.db, user)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        print(
            f"change_marker over {args.n} messages: median {statistics.median(times):.2f} ms, "
            f"p95 {p95:.2f} ms ({args.calls} calls); load average {os.getloadavg()[0]:.2f}"
        )
        from sqlalchemy import text

        from app.services.change_marker import QUERIES

        with services.db.read() as session:
            for kind, sql in QUERIES.items():
                t0 = time.perf_counter()
                for _ in range(10):
                    session.execute(text(sql), {"u": user}).one()
                print(f"  {kind}: {(time.perf_counter() - t0) * 100:.2f} ms")
        services.close()


if __name__ == "__main__":
    main()
