"""Memory soak: `strata serve` at 100k messages under mixed use, its RSS sampled over time.

A copy of the 100k data dir (built once by bench_search/bench_rest and kept in `--workdir`) is
served by a real `strata serve` process. For `--minutes` this process drives it over REST:
searches from a few clients at a modest rate, an import of `--import-size` new messages every
`--import-every` seconds (real embedding), a forgetting cycle every `--forget-every` seconds; the
server's own scheduler runs insight generation every `--insights-minutes` and its other jobs as
configured. The server's RSS is sampled every `--sample` seconds into a CSV; at the end the load
stops for `--idle` seconds and the idle RSS is read. Printed: the curve in 5-minute buckets, the
RSS right before and 90 s after each forgetting run, and the idle figure, with load averages.

    python tests/benchmarks/bench_soak.py [--minutes 30] [--workdir DIR] [--csv soak.csv]
        [--busy-seconds 300 --quiet-seconds 180]

With `--quiet-seconds`, searches and imports pause for that long after every `--busy-seconds`
(forgetting keeps its schedule): with short idle settings the server releases and rebuilds
each cycle, and the RSS at the end of each quiet period shows whether anything stays behind.
Each sample also records the server's anonymous memory (the rest of RSS is mapped files).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.security import load_or_create_token
from app.api.server import free_port
from tests.benchmarks import bench_search, synthetic
from tests.benchmarks.bench_rest import ROOT, ensure_data, rss_mb, wait_ready


def anonymous_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) / 1024
    return 0.0


def quiet(args: argparse.Namespace, started: float) -> float:
    """Seconds left of the current quiet period (0 while busy): clients pause, the server idles."""
    if args.quiet_seconds <= 0:
        return 0.0
    cycle = args.busy_seconds + args.quiet_seconds
    into = (time.monotonic() - started) % cycle
    return max(0.0, cycle - into) if into >= args.busy_seconds else 0.0


class Sampler(threading.Thread):
    """RSS of the server every `period` seconds, with the event (if any) that just happened."""

    def __init__(self, pid: int, period: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.started = time.monotonic()
        self.rows: list[tuple[float, float, float, str]] = []  # seconds, MB, load, event
        self.anonymous: list[float] = []  # MB of anonymous memory at each row (the rest: files)
        self.events: list[tuple[float, str]] = []
        self.stop = threading.Event()

    def mark(self, event: str) -> None:
        self.events.append((time.monotonic() - self.started, event))

    def run(self) -> None:
        while not self.stop.is_set():
            at = time.monotonic() - self.started
            event = ",".join(e for t, e in self.events if at - self.period < t <= at)
            self.rows.append((at, rss_mb(self.pid), os.getloadavg()[0], event))
            self.anonymous.append(anonymous_mb(self.pid))
            self.stop.wait(self.period)

    def rss_at(self, seconds: float) -> float:
        near = min(self.rows, key=lambda r: abs(r[0] - seconds))
        return near[1]


async def drive(url: str, token: str, args: argparse.Namespace, sampler: Sampler) -> dict[str, int]:
    headers = {"Authorization": f"Bearer {token}"}
    stop_at = time.monotonic() + args.minutes * 60
    counts = {"searches": 0, "search_503": 0, "imports": 0, "forgetting": 0, "errors": 0}
    _, queries = bench_search.corpus("synthetic", 10)
    rng = random.Random(3)

    async def searcher(client: httpx.AsyncClient) -> None:
        while time.monotonic() < stop_at:
            if (left := quiet(args, sampler.started)) > 0:
                await asyncio.sleep(min(left, max(0.0, stop_at - time.monotonic())))
                continue
            query = f"{rng.choice(queries)} {rng.randint(0, 10**6)}"
            try:
                response = await client.get("/api/search", params={"q": query, "limit": 10})
                counts["searches" if response.status_code == 200 else "search_503"] += 1
            except httpx.HTTPError:  # e.g. a kept-alive connection the server just closed
                counts["errors"] += 1
            await asyncio.sleep(args.clients / args.search_rate)

    async def importer(client: httpx.AsyncClient) -> None:
        batch_no = 0
        while time.monotonic() + args.import_every < stop_at:
            await asyncio.sleep(args.import_every)
            if quiet(args, sampler.started) > 0:
                continue
            batch_no += 1
            fresh = synthetic.messages(args.import_size, seed=10_000 + batch_no, start_ms=1_760_000_000_000)
            items = [
                {
                    "platform": m.platform,
                    "message_id": f"soak-{batch_no}-{m.message_id}",
                    "channel": m.channel,
                    "person": m.person,
                    "timestamp": m.timestamp,
                    "content": m.content,
                }
                for m in fresh
            ]
            try:
                response = await client.post("/api/messages", json={"messages": items}, timeout=600)
                counts["imports" if response.status_code == 200 else "errors"] += 1
            except httpx.HTTPError:
                counts["errors"] += 1
            sampler.mark("import")

    async def forgetter(client: httpx.AsyncClient) -> None:
        while time.monotonic() + args.forget_every < stop_at:
            await asyncio.sleep(args.forget_every)
            sampler.mark("forget-start")
            try:
                response = await client.post("/api/forgetting/run", json={}, timeout=1200)
                counts["forgetting" if response.status_code == 200 else "errors"] += 1
            except httpx.HTTPError:
                counts["errors"] += 1
            sampler.mark("forget-end")

    async def marker() -> None:
        was = False
        while time.monotonic() < stop_at:
            now = quiet(args, sampler.started) > 0
            if now != was:
                sampler.mark("quiet-start" if now else "quiet-end")
                was = now
            await asyncio.sleep(1)

    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
        await asyncio.gather(
            *(searcher(client) for _ in range(args.clients)), importer(client), forgetter(client), marker()
        )
    return counts


def report(sampler: Sampler, idle_from: float) -> None:
    rows = sampler.rows
    print("minute  RSS max  RSS last  load")
    bucket = 300.0
    for start in range(0, int(rows[-1][0]) + 1, int(bucket)):
        inside = [r for r in rows if start <= r[0] < start + bucket]
        if inside:
            print(
                f"{start / 60:6.0f}  {max(r[1] for r in inside):7.0f}  {inside[-1][1]:8.0f}  "
                f"{inside[-1][2]:4.1f}"
            )
    for at, event in sampler.events:
        if event == "forget-end":
            before = max(0.0, at - 1)
            print(
                f"forgetting run ending at {at / 60:5.1f} min: RSS {sampler.rss_at(before):.0f} MB, "
                f"+90 s {sampler.rss_at(at + 90):.0f} MB"
            )
    for at, event in sampler.events:
        if event == "quiet-end":
            near = min(range(len(rows)), key=lambda i: abs(rows[i][0] - (at - 1)))
            print(
                f"end of a quiet period at {at / 60:5.1f} min: RSS {rows[near][1]:.0f} MB "
                f"(anonymous {sampler.anonymous[near]:.0f})"
            )
    idle = [r[1] for r in rows if r[0] >= idle_from]
    print(
        f"start {rows[0][1]:.0f} MB, peak {max(r[1] for r in rows):.0f} MB, "
        f"idle at the end {idle[-1] if idle else rows[-1][1]:.0f} MB (load {rows[-1][2]:.1f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--search-rate", type=float, default=4.0, help="searches per second, all clients")
    parser.add_argument("--import-every", type=float, default=60)
    parser.add_argument("--import-size", type=int, default=200)
    parser.add_argument("--forget-every", type=float, default=300)
    parser.add_argument("--insights-minutes", type=int, default=5)
    parser.add_argument("--sample", type=float, default=5)
    parser.add_argument("--idle", type=float, default=150, help="quiet seconds at the end")
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--busy-seconds", type=float, default=300, help="with --quiet-seconds")
    parser.add_argument(
        "--quiet-seconds", type=float, default=0, help="pause searches and imports this long per cycle"
    )
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-bench-soak-"))
    source = ensure_data(workdir, args.n)
    data_dir = Path(tempfile.mkdtemp(prefix="strata-soak-")) / "data"
    shutil.copytree(source, data_dir)  # the soak imports and forgets: keep the built index clean
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "STRATA_LOG_LEVEL": "WARNING",
        "STRATA_INSIGHTS__SCHEDULE_MINUTES": str(args.insights_minutes),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
    )
    sampler = Sampler(server.pid, args.sample)
    try:
        asyncio.run(wait_ready(url))
        sampler.start()
        counts = asyncio.run(drive(url, token, args, sampler))
        idle_from = time.monotonic() - sampler.started
        sampler.mark("idle")
        time.sleep(args.idle)
    finally:
        sampler.stop.set()
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(data_dir.parent, ignore_errors=True)
    print(f"soak {args.minutes:.0f} min at {args.n} messages: {counts}")
    report(sampler, idle_from)
    if args.csv:
        samples = [
            f"{a:.0f},{b:.1f},{anon:.1f},{c:.2f},{d}"
            for (a, b, c, d), anon in zip(sampler.rows, sampler.anonymous, strict=False)
        ]
        lines = ["seconds,rss_mb,anonymous_mb,load,event", *samples]
        args.csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"curve written to {args.csv}")
    print(f"machine {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
