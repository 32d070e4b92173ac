"""REST search under concurrent clients, and MCP `search_memory` latency over streamable HTTP.

`strata serve` runs as its own process (as in real use) on a fresh data dir holding N synthetic
messages; this process drives it with C concurrent httpx clients for S seconds, then times
sequential MCP tool calls through the SDK client.

    python tests/benchmarks/bench_api.py [--n 5000] [--clients 20] [--seconds 30] [--embedder local]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from app.api.security import load_or_create_token
from app.api.server import free_port
from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.synthetic import QUERIES, messages

ROOT = Path(__file__).resolve().parents[2]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def prepare(data_dir: Path, n: int, embedder: str) -> None:
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider=embedder))
    services = build_services(settings)
    started = time.perf_counter()
    batch = messages(n)
    for i in range(0, n, 1000):
        services.memory.ingest(batch[i : i + 1000])
    print(
        f"ingested      {n} messages in {time.perf_counter() - started:.1f} s ({services.embedder.model_id})"
    )
    services.close()
    (data_dir / "settings.toml").write_text(f'[embedding]\nprovider = "{embedder}"\n', encoding="utf-8")


async def wait_ready(url: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{url}/api/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.25)
    raise RuntimeError("server did not start")


async def rest_load(url: str, token: str, clients: int, seconds: float) -> None:
    latencies: list[float] = []
    errors = 0
    stop_at = time.monotonic() + seconds

    async def worker(seed: int) -> None:
        nonlocal errors
        rng = random.Random(seed)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                try:
                    response = await client.get("/api/search", params={"q": rng.choice(QUERIES), "limit": 10})
                    ok = response.status_code == 200 and response.json()["hits"]
                except httpx.HTTPError:
                    ok = False
                latencies.append((time.perf_counter() - started) * 1000)
                errors += 0 if ok else 1

    await asyncio.gather(*(worker(i) for i in range(clients)))
    print(
        f"REST search   {clients} clients x {seconds:.0f} s: {len(latencies)} requests "
        f"({len(latencies) / seconds:.1f}/s), p50 {percentile(latencies, 0.5):.0f} ms, "
        f"p95 {percentile(latencies, 0.95):.0f} ms, errors {errors}"
    )


async def mcp_latency(url: str, token: str, calls: int) -> None:
    latencies: list[float] = []
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for i in range(calls + 5):
            started = time.perf_counter()
            result = await session.call_tool("search_memory", {"query": QUERIES[i % len(QUERIES)]})
            elapsed = (time.perf_counter() - started) * 1000
            assert not result.is_error and json.loads(result.content[0].text)["hits"]
            if i >= 5:  # the first calls warm caches
                latencies.append(elapsed)
    print(
        f"MCP search_memory over HTTP, {calls} sequential calls: p50 {statistics.median(latencies):.0f} ms, "
        f"p95 {percentile(latencies, 0.95):.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--mcp-calls", type=int, default=100)
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="strata-bench-api-"))
    prepare(data_dir, args.n, args.embedder)
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), "serve", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "STRATA_LOG_LEVEL": "WARNING"},
    )
    try:
        asyncio.run(wait_ready(url))
        asyncio.run(rest_load(url, token, 2, 3))  # warm-up: model, caches, connection pools
        asyncio.run(rest_load(url, token, args.clients, args.seconds))
        asyncio.run(mcp_latency(url, token, args.mcp_calls))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"machine       {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
