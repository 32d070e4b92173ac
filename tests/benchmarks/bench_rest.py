"""REST search throughput, p50/p95 and 503s under C concurrent clients at 100k messages.

`strata serve` runs as its own process on a data dir of N synthetic messages (built once with
recycled real vectors, as in bench_search.py, and reused from `--workdir`); C clients (keep-alive
connections over raw asyncio streams, one process) send GET /api/search for S seconds with
distinct query texts (so the query-embedding cache does not flatter the figures), once the
server's start-up jobs are done. Prints requests/s, p50/p95 of served requests, 503s (admission
control), the server's RSS, the load average, and the CPU per request of the server and of this
load generator (which shares the cores); `--clients` takes a list to sweep.

    python tests/benchmarks/bench_rest.py [--n 100000] [--clients 20,50] [--seconds 30]
        [--workdir DIR] [--max-concurrent 8] [--search-workers 2] [--server-root CHECKOUT]

With search workers (`api.search_workers`, the default for `strata serve`), the server CPU
counts the workers' CPU too, and their RSS is printed beside the server's.

`--settle` (default 180 s) starts the measured phases that long after the server started: the
scheduler's first runs come in its first two and a half minutes (index vectors and forgetting at
~60 s, vector files at ~90 s, memory files at ~120 s after the scheduler starts; ~1-3 s of CPU at
100k), then hourly. Measured inside a 30 s phase they added 1-2 ms of server CPU a search at one
client (the 3.7 ms of session 10) and ~0.5 ms at 20; `--settle 0` measures as before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.security import load_or_create_token
from app.api.server import free_port
from tests.benchmarks import bench_search
from tests.benchmarks.bench_api import wait_ready
from tests.benchmarks.bench_search import percentile

ROOT = Path(__file__).resolve().parents[2]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all its threads (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """Live child processes of `pid` (the server's search workers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def tree_cpu_seconds(pid: int) -> float:
    """The server's CPU with its search workers': live ones, and those it has reaped."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
    live = 0.0
    for child in children(pid):
        try:
            live += cpu_seconds(child)
        except OSError:
            continue
    return cpu_seconds(pid) + reaped + live


def workers_rss_mb(pid: int) -> list[float]:
    out = []
    for child in children(pid):
        try:
            out.append(rss_mb(child))
        except OSError:
            continue
    return out


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def ensure_data(workdir: Path, n: int) -> Path:
    data_dir = workdir / f"synthetic-{n}"
    if not (data_dir / "strata.sqlite3").exists():
        # bench_search builds (or reuses) the index there and times a few searches.
        bench_search.run(n, "local", "synthetic", workdir)
    return data_dir


class KeepAlive:
    """One HTTP/1.1 keep-alive connection spoken over raw asyncio streams.

    httpx cost the load generator ~6 ms of CPU per request at 20 clients (14 % of the two
    processes' CPU on the 2 cores it shares with the server); this costs a fraction of that,
    so the figures are about the server."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port = host, port
        self.head = f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\n".encode() + self.head)
        try:
            raw = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            raise
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
        }
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def load(url: str, token: str, clients: int, seconds: float, queries: list[str]) -> dict[str, float]:
    served: list[float] = []
    refused = errors = 0
    stop_at = time.monotonic() + seconds
    counter = 0
    address = httpx.URL(url)

    async def worker() -> None:
        nonlocal refused, errors, counter
        connection = KeepAlive(address.host, address.port or 80, token)
        try:
            while time.monotonic() < stop_at:
                counter += 1
                query = f"{queries[counter % len(queries)]} {counter}"  # distinct: no cache hits
                path = "/api/search?" + urlencode({"q": query, "limit": 10})
                started = time.perf_counter()
                try:
                    status, headers, _ = await connection.get(path)
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    errors += 1
                    continue
                elapsed = (time.perf_counter() - started) * 1000
                if status == 503:
                    refused += 1
                    await asyncio.sleep(float(headers.get("retry-after", "1")))
                elif status == 200:
                    served.append(elapsed)
                else:
                    errors += 1
        finally:
            await connection.close()

    started = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(clients)))
    wall = time.monotonic() - started
    return {
        "rps": len(served) / wall,
        "p50": percentile(served, 0.5) if served else 0.0,
        "p95": percentile(served, 0.95) if served else 0.0,
        "served": len(served),
        "refused": refused,
        "errors": errors,
    }


def wait_idle(pid: int, timeout: float = 300.0, share: float = 0.05) -> float:
    """Wait until the server's start-up jobs (index repair, memory files) are done: its CPU use
    over 2 s below `share` of a core. Returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = tree_cpu_seconds(pid)
        time.sleep(2)
        if tree_cpu_seconds(pid) - before < 2 * share:
            break
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--clients", default="20")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--max-concurrent", type=int, default=None, help="api.max_concurrent_requests")
    parser.add_argument("--search-workers", type=int, default=None, help="api.search_workers (0: in-process)")
    parser.add_argument(
        "--server-root", type=Path, default=ROOT, help="run the server of this checkout (main, to compare)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=180.0,
        help="start measuring this many seconds after the server started (past the scheduler's first runs)",
    )
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-bench-rest-"))
    data_dir = ensure_data(workdir, args.n)
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "STRATA_LOG_LEVEL": "WARNING"}
    if args.max_concurrent:
        env["STRATA_API__MAX_CONCURRENT_REQUESTS"] = str(args.max_concurrent)
    if args.search_workers is not None:
        env["STRATA_API__SEARCH_WORKERS"] = str(args.search_workers)
    server_started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=args.server_root,
        env={**env, "PYTHONPATH": str(args.server_root)},
    )
    _, queries = bench_search.corpus("synthetic", 10)
    try:
        asyncio.run(wait_ready(url, timeout=300))
        # The scheduled jobs' first runs are not searches: not measured. Before the warm-up, so
        # the search workers (stopped after api.search_worker_idle_seconds) start after it.
        settle = args.settle - (time.monotonic() - server_started)
        if settle > 0:
            time.sleep(settle)
            print(f"settled {settle:.0f} s (the scheduler's first runs)")
        # Warm-up: model, caches, connection pools; 4 clients at once also start the search workers.
        asyncio.run(load(url, token, 4, 5, queries))
        print(f"server start-up jobs done after {wait_idle(server.pid):.0f} s more")
        print(
            f"server RSS after warm-up {rss_mb(server.pid):.0f} MB, workers {workers_rss_mb(server.pid)} MB"
        )
        for clients in (int(c) for c in args.clients.split(",")):
            load_before = os.getloadavg()[0]
            server_cpu, client_cpu = tree_cpu_seconds(server.pid), time.process_time()
            main_cpu = cpu_seconds(server.pid)
            wall = time.monotonic()
            r = asyncio.run(load(url, token, clients, args.seconds, queries))
            wall = time.monotonic() - wall
            server_cpu = tree_cpu_seconds(server.pid) - server_cpu
            main_cpu = cpu_seconds(server.pid) - main_cpu
            client_cpu = time.process_time() - client_cpu
            workers = workers_rss_mb(server.pid)
            answered = max(1, r["served"] + r["refused"])
            print(
                f"[{args.n}] {clients} clients x {args.seconds:.0f} s: {r['rps']:.1f} searches/s, "
                f"p50 {r['p50']:.0f} ms, p95 {r['p95']:.0f} ms, 503s {r['refused']}, errors {r['errors']}; "
                f"server RSS {rss_mb(server.pid):.0f} MB; load {load_before:.1f} → {os.getloadavg()[0]:.1f}"
            )
            if workers:
                print(f"[{args.n}] search workers RSS: {', '.join(f'{w:.0f}' for w in workers)} MB")
            # CPU per answered request does not depend much on the machine's load: the figure to
            # compare across runs; the client's share says how much of the 2 cores it took.
            print(
                f"[{args.n}] {clients} clients: server CPU {1000 * server_cpu / answered:.1f} ms/request "
                f"(with its search workers; {server_cpu / wall:.2f} cores), "
                f"load generator CPU {1000 * client_cpu / answered:.1f} ms/request "
                f"({100 * client_cpu / max(1e-9, server_cpu + client_cpu):.0f} % of the two processes)"
            )
            if workers:
                print(
                    f"[{args.n}] {clients} clients: the server process itself "
                    f"{1000 * main_cpu / answered:.1f} ms/request ({main_cpu / wall:.2f} cores), "
                    f"its search workers {1000 * (server_cpu - main_cpu) / answered:.1f} ms/request"
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"machine {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
