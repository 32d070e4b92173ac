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
Each sample also records the server's anonymous memory (the rest of RSS is mapped files), the
RSS of its child processes (the REST search workers, which start when searches overlap and stop
after `api.search_worker_idle_seconds`, and multiprocessing's resource tracker), the CPU seconds
of the whole tree, and insight runs (seen as the insight cursors moving in SQLite, read-only). The
server's log goes to `--log`; insight runs skipped as "still running" are counted from it.

    python tests/benchmarks/bench_soak.py --data-dir DIR   # a built 100k dir (copied, not modified)
    python tests/benchmarks/bench_soak.py --mode ui ...    # the desktop app (offscreen) instead

The driver itself maps LanceDB, Arrow, ONNX Runtime and NumPy; run the server from a copy of the
virtualenv (`--root DIR`, a directory with links to this checkout's packages and its own `.venv`)
so its library pages are not shared with the driver and the idle page drop can give them back.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
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
from tests.benchmarks import anon_regions, bench_search, synthetic
from tests.benchmarks.bench_rest import ROOT, children, ensure_data, rss_mb, tree_cpu_seconds, wait_ready


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
    """RSS of the server and its children every `period` seconds, with the events that just happened."""

    def __init__(self, pid: int, period: float, database: Path | None = None) -> None:
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.database = database  # read-only: insight runs show as their cursors moving
        self.started = time.monotonic()
        self.rows: list[tuple[float, float, float, str]] = []  # seconds, MB, load, event
        self.anonymous: list[float] = []  # MB of anonymous memory at each row (the rest: files)
        self.children: list[tuple[int, float]] = []  # child processes and their RSS (MB) at each row
        self.cpu: list[float] = []  # CPU seconds of the server and its children so far
        self.events: list[tuple[float, str]] = []
        self.stop = threading.Event()
        self._cursor: tuple[int, int] | None = None

    def mark(self, event: str) -> None:
        self.events.append((time.monotonic() - self.started, event))

    def insight_progress(self) -> None:
        if self.database is None:
            return
        query = "SELECT coalesce(max(last_run_at), 0), count(*) FROM insight_group_cursors"
        try:
            con = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=1)
            try:
                row = con.execute(query).fetchone()
            finally:
                con.close()
        except sqlite3.Error:
            return
        now = (int(row[0]), int(row[1]))
        if self._cursor is not None and now != self._cursor:
            self.mark("insights")
        self._cursor = now

    def run(self) -> None:
        while not self.stop.is_set():
            self.insight_progress()
            at = time.monotonic() - self.started
            event = ",".join(dict.fromkeys(e for t, e in self.events if at - self.period < t <= at))
            self.rows.append((at, rss_mb(self.pid), os.getloadavg()[0], event))
            self.anonymous.append(anonymous_mb(self.pid))
            kids = []
            for child in children(self.pid):
                try:
                    kids.append(rss_mb(child))
                except OSError:
                    continue
            self.children.append((len(kids), sum(kids)))
            try:
                self.cpu.append(tree_cpu_seconds(self.pid))
            except OSError:
                self.cpu.append(self.cpu[-1] if self.cpu else 0.0)
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


def report(sampler: Sampler, idle_from: float, bucket: float = 300.0) -> None:
    """The curve per `bucket` seconds as a markdown table, the quiet periods' ends, the end state."""
    rows = sampler.rows
    print(
        "| minutes | server RSS max | server RSS min (anonymous) | children: most, RSS max | server + "
        "children max | CPU s | load | events |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for start in range(0, int(rows[-1][0]) + 1, int(bucket)):
        inside = [i for i, r in enumerate(rows) if start <= r[0] < start + bucket]
        if not inside:
            continue
        low = min(inside, key=lambda i: rows[i][1])
        events: dict[str, int] = {}
        for i in inside:
            for e in filter(None, rows[i][3].split(",")):
                events[e] = events.get(e, 0) + 1
        cpu = sampler.cpu[inside[-1]] - sampler.cpu[max(0, inside[0] - 1)]
        print(
            f"| {start / 60:.0f}–{(start + bucket) / 60:.0f} | {max(rows[i][1] for i in inside):,.0f} | "
            f"{rows[low][1]:,.0f} ({sampler.anonymous[low]:,.0f}) | "
            f"{max(sampler.children[i][0] for i in inside)}, "
            f"{max(sampler.children[i][1] for i in inside):,.0f} | "
            f"{max(rows[i][1] + sampler.children[i][1] for i in inside):,.0f} | {cpu:.0f} | "
            f"{rows[inside[-1]][2]:.1f} | {', '.join(f'{e} ×{n}' for e, n in events.items())} |"
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
                f"(anonymous {sampler.anonymous[near]:.0f}), children {sampler.children[near][0]} "
                f"({sampler.children[near][1]:.0f} MB)"
            )
    insight_times = [t for t, e in sampler.events if e == "insights"]
    if insight_times:
        print(
            f"insight cursors moved {len(insight_times)} times, last at {insight_times[-1] / 60:.1f} min "
            f"(the idle tail began at {idle_from / 60:.1f} min)"
        )
    idle = [i for i, r in enumerate(rows) if r[0] >= idle_from] or [len(rows) - 1]
    end = idle[-1]
    print(
        f"start {rows[0][1]:.0f} MB, peak {max(r[1] for r in rows):.0f} MB (with children "
        f"{max(r[1] + c[1] for r, c in zip(rows, sampler.children, strict=True)):.0f}); end of the idle "
        f"tail: server {rows[end][1]:.0f} MB (anonymous {sampler.anonymous[end]:.0f}), children "
        f"{sampler.children[end][0]} ({sampler.children[end][1]:.0f} MB), lowest in the tail "
        f"{min(rows[i][1] for i in idle):.0f} MB (load {rows[end][2]:.1f}); tree CPU "
        f"{sampler.cpu[end]:.0f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="a built data dir (copied), not --workdir's"
    )
    parser.add_argument(
        "--mode", choices=("serve", "ui"), default="serve", help="ui: the desktop app, offscreen"
    )
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--search-rate", type=float, default=4.0, help="searches per second, all clients")
    parser.add_argument("--import-every", type=float, default=60)
    parser.add_argument("--import-size", type=int, default=200)
    parser.add_argument("--forget-every", type=float, default=300)
    parser.add_argument("--insights-minutes", type=int, default=5)
    parser.add_argument("--sample", type=float, default=5)
    parser.add_argument("--idle", type=float, default=150, help="quiet seconds at the end")
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the checkout whose .venv runs the server: one with a copy of the virtualenv keeps the "
        "server's library pages its own",
    )
    parser.add_argument("--log", type=Path, default=None, help="the server's output (default: a temp file)")
    parser.add_argument("--busy-seconds", type=float, default=300, help="with --quiet-seconds")
    parser.add_argument(
        "--quiet-seconds", type=float, default=0, help="pause searches and imports this long per cycle"
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in a log file
    if args.data_dir is not None:
        source = args.data_dir
    else:
        workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-bench-soak-"))
        source = ensure_data(workdir, args.n)
    data_dir = Path(tempfile.mkdtemp(prefix="strata-soak-")) / "data"
    shutil.copytree(source, data_dir)  # the soak imports and forgets: keep the built index clean
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "STRATA_LOG_LEVEL": "WARNING",  # APScheduler's "skipped: … running instances" is a warning
        "STRATA_INSIGHTS__SCHEDULE_MINUTES": str(args.insights_minutes),
        "STRATA_API__PORT": str(port),
        "QT_QPA_PLATFORM": "offscreen",
    }
    # This driver maps LanceDB, Arrow, ONNX Runtime and NumPy too (bench_search, bench_rest): a
    # server run from the same virtualenv shares those pages with it, and shared pages are not
    # given back by the idle page drop (~100 MB of the soak's end stayed as file pages for that).
    python = args.root / ".venv" / "bin" / "python"
    command = [str(python if python.exists() else sys.executable), "-m", "app.cli.main"]
    command += ["--data-dir", str(data_dir)]
    command += ["serve", "--port", str(port)] if args.mode == "serve" else ["ui"]
    log_path = args.log or data_dir.parent / "server.log"
    log = log_path.open("w", encoding="utf-8")
    server = subprocess.Popen(command, cwd=args.root, env=env, stdout=log, stderr=subprocess.STDOUT)
    sampler = Sampler(server.pid, args.sample, data_dir / "strata.sqlite3")
    try:
        asyncio.run(wait_ready(url, timeout=600))
        sampler.start()
        counts = asyncio.run(drive(url, token, args, sampler))
        idle_from = time.monotonic() - sampler.started
        sampler.mark("idle")
        print(f"load stopped at {idle_from / 60:.1f} min: {counts}; idle for {args.idle:.0f} s")
        time.sleep(args.idle)
        # Where the end state's anonymous memory sits (main heap, other arenas, large mappings).
        print(f"server at the end: {anon_regions.summary(server.pid, top=6)}")
    finally:
        sampler.stop.set()
        sampler.join(timeout=30)
        server.terminate()
        server.wait(timeout=60)
        log.close()
    text = log_path.read_text(encoding="utf-8", errors="replace")
    skipped = text.count("maximum number of running instances")
    if args.log is None:
        shutil.copy(log_path, Path(tempfile.gettempdir()) / "strata-soak-server.log")
        log_path = Path(tempfile.gettempdir()) / "strata-soak-server.log"
    shutil.rmtree(data_dir.parent, ignore_errors=True)
    print(f"soak {args.minutes:.0f} min at {args.n} messages ({args.mode}): {counts}")
    print(f"scheduled runs skipped as still running: {skipped} (server log {log_path})")
    report(sampler, idle_from)
    if args.csv:
        head = "seconds,rss_mb,anonymous_mb,children,children_mb,total_mb,cpu_s,load,event"
        samples = [
            f"{a:.0f},{b:.1f},{anon:.1f},{kids[0]},{kids[1]:.1f},{b + kids[1]:.1f},{cpu:.1f},{c:.2f},{d}"
            for (a, b, c, d), anon, kids, cpu in zip(
                sampler.rows, sampler.anonymous, sampler.children, sampler.cpu, strict=False
            )
        ]
        args.csv.write_text("\n".join([head, *samples]) + "\n", encoding="utf-8")
        print(f"curve written to {args.csv}")
    print(f"machine {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
