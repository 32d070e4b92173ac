"""REST search throughput, p50/p95 and 503s under C concurrent clients at 100k messages.

`strata serve` runs as its own process on a data dir of N synthetic messages (built once with
recycled real vectors, as in bench_search.py, and reused from `--workdir`); C httpx clients send
GET /api/search for S seconds with distinct query texts (so the query-embedding cache does not
flatter the figures). Prints requests/s, p50/p95 of served requests, 503s (admission control),
the server's RSS and the load average; `--clients` takes a list to sweep.

    python tests/benchmarks/bench_rest.py [--n 100000] [--clients 20,50] [--seconds 30]
        [--workdir DIR] [--max-concurrent 8]
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

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.security import load_or_create_token
from app.api.server import free_port
from tests.benchmarks import bench_search
from tests.benchmarks.bench_api import wait_ready
from tests.benchmarks.bench_search import percentile

ROOT = Path(__file__).resolve().parents[2]


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


async def load(url: str, token: str, clients: int, seconds: float, queries: list[str]) -> dict[str, float]:
    served: list[float] = []
    refused = errors = 0
    stop_at = time.monotonic() + seconds
    counter = 0

    async def worker() -> None:
        nonlocal refused, errors, counter
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            while time.monotonic() < stop_at:
                counter += 1
                query = f"{queries[counter % len(queries)]} {counter}"  # distinct: no cache hits
                started = time.perf_counter()
                try:
                    response = await client.get("/api/search", params={"q": query, "limit": 10})
                except httpx.HTTPError:
                    errors += 1
                    continue
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code == 503:
                    refused += 1
                    await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
                elif response.status_code == 200:
                    served.append(elapsed)
                else:
                    errors += 1

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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--clients", default="20")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--max-concurrent", type=int, default=None, help="api.max_concurrent_requests")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-bench-rest-"))
    data_dir = ensure_data(workdir, args.n)
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "STRATA_LOG_LEVEL": "WARNING"}
    if args.max_concurrent:
        env["STRATA_API__MAX_CONCURRENT_REQUESTS"] = str(args.max_concurrent)
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
    )
    _, queries = bench_search.corpus("synthetic", 10)
    try:
        asyncio.run(wait_ready(url, timeout=300))
        asyncio.run(load(url, token, 2, 5, queries))  # warm-up: model, caches, connection pools
        print(f"server RSS after warm-up {rss_mb(server.pid):.0f} MB")
        for clients in (int(c) for c in args.clients.split(",")):
            load_before = os.getloadavg()[0]
            r = asyncio.run(load(url, token, clients, args.seconds, queries))
            print(
                f"[{args.n}] {clients} clients x {args.seconds:.0f} s: {r['rps']:.1f} searches/s, "
                f"p50 {r['p50']:.0f} ms, p95 {r['p95']:.0f} ms, 503s {r['refused']}, errors {r['errors']}; "
                f"server RSS {rss_mb(server.pid):.0f} MB; load {load_before:.1f} → {os.getloadavg()[0]:.1f}"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"machine {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
