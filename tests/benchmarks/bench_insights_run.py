"""One scheduled insight run after a small import into a large archive: CPU, wall, RSS, messages read.

The situation of the memory soak: a 100k archive whose insights are caught up receives 200 new
messages (the soak's synthetic batch, dated inside the archive's time span), then the insight job
runs. The data dir is copied first (`--data-dir` is never modified). Groups the archive's insights
never reached get their cursor set to the end, so only the imported messages are new (both code
versions then see the same work). Run it with `--code-root` a checkout of another version for a
before/after; the figures that do not depend on load are the CPU seconds, RSS and messages read.

    python tests/benchmarks/bench_insights_run.py --data-dir DIR [--import-size 200] [--code-root /work/main]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Peak(threading.Thread):
    """Highest RSS of this process while it runs (sampled every 0.1 s)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mb())
            self.stop.wait(0.1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--import-size", type=int, default=200)
    parser.add_argument("--runs", type=int, default=1, help="imports, each followed by a run")
    parser.add_argument("--code-root", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--limit", type=int, default=None, help="message budget (this branch only)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code_root))
    sys.path.insert(1, str(ROOT))  # the synthetic messages come from this checkout
    from sqlalchemy import text

    from app.bootstrap import build_services
    from app.core import memory_trim
    from app.core.domain import RawMessage
    from app.core.settings import load_settings
    from tests.benchmarks import synthetic

    memory_trim.limit_arenas(2)
    scratch = Path(tempfile.mkdtemp(prefix="strata-insights-run-"))
    data_dir = scratch / "data"
    subprocess.run(["cp", "-a", str(args.data_dir), str(data_dir)], check=True)
    try:
        services = build_services(load_settings(data_dir))
        with services.db.write() as session:
            analysed = set(session.execute(text("SELECT platform, channel FROM insight_group_cursors")).all())
            # Groups never analysed count as analysed: only the imports below are new. Imports go to
            # analysed groups only (the old code would re-read context whose insights never existed).
            moved = session.execute(
                text(
                    "INSERT OR IGNORE INTO insight_group_cursors (user_id, platform, channel, last_row_id, "
                    "last_run_at) SELECT user_id, platform, channel, max(id), 0 FROM raw_messages "
                    "GROUP BY user_id, platform, channel"
                )
            ).rowcount
        print(f"code {args.code_root}; {moved} groups had no cursor (set to their end)")
        for run in range(1, args.runs + 1):
            fresh = synthetic.messages(args.import_size, seed=10_000 + run, start_ms=1_760_000_000_000)
            batch = [
                RawMessage(platform=m.platform, message_id=f"run-{run}-{m.message_id}", channel=m.channel,
                           person=m.person, timestamp=m.timestamp, content=m.content)
                for m in fresh
                if (m.platform, m.channel) in analysed
            ]  # fmt: skip
            services.memory.ingest(batch)
            print(f"imported {len(batch)} messages into {len(analysed)} analysed groups")
            memory_trim.release()
            before = rss_mb()
            peak = Peak()
            peak.start()
            cpu, wall = time.process_time(), time.perf_counter()
            kwargs = {"limit": args.limit} if args.limit else {}
            report = services.insights.generate(**kwargs)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            peak.stop.set()
            peak.join()
            memory_trim.release()
            summary = report.to_dict()
            print(
                f"run {run}: {cpu:.1f} s CPU, {wall:.1f} s wall; RSS before {before:.0f} MB, peak "
                f"{peak.peak:.0f} MB, after (trimmed) {rss_mb():.0f} MB; read {summary['messagesRead']} "
                f"messages in {summary['groupsProcessed']} groups; created {summary['created']}, updated "
                f"{summary['updated']}, unchanged {summary['unchanged']}; "
                f"pending {summary.get('pending', '-')} "
                f"(load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
        services.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
