"""The agent surface's cost: tool-definition size per MCP profile, and the wake-up brief's size and latency.

Sizes are the JSON of `list_tools()` as the SDK client receives it (what a client puts in the
model's context). The brief is timed on the demo chat and on a 10k-message synthetic archive with
insights generated (goal: <= 300 ms at 10k).

    python tests/benchmarks/bench_mcp_surface.py [--messages 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import Services, build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path
from app.core.settings import EmbeddingSettings, Settings
from app.mcp.server import PROFILES, build_mcp_server
from tests.benchmarks.synthetic import messages


async def definition_sizes(services: Services) -> dict[str, tuple[int, int]]:
    sizes = {}
    for profile in PROFILES:
        async with Client(build_mcp_server(services, profile=profile)) as client:
            tools = (await client.list_tools()).tools
            text = json.dumps([t.model_dump(mode="json", exclude_none=True) for t in tools])
            sizes[profile] = (len(tools), len(text))
    return sizes


def time_brief(services: Services, runs: int = 15) -> tuple[float, float, int]:
    assert services.brief is not None
    services.brief.brief()  # warm caches
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        body = services.brief.brief().to_dict()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times), body["approxTokens"]


def archive(size: int) -> Services:
    workdir = Path(tempfile.mkdtemp(prefix="strata-brief-"))
    settings = Settings(data_dir=workdir, embedding=EmbeddingSettings(provider="hashing"))
    services = build_services(settings, embedder=HashingEmbedder())
    if size:
        services.memory.ingest(messages(size))
    else:
        demo = resource_path("demo", "conversation.jsonl").read_text("utf-8").splitlines()
        services.memory.ingest(parse_jsonl(demo))
    services.insights.set_me(["anna", "me"])
    services.insights.generate()
    return services


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    demo = archive(0)
    for profile, (count, chars) in anyio.run(definition_sizes, demo).items():
        print(
            f"profile {profile:9}: {count:2} tools, {chars:6,} characters of definitions"
            f" (~{chars // 4:,} tokens)"
        )
    for label, services in (
        ("demo (24 messages)", demo),
        (f"{args.messages:,} messages", archive(args.messages)),
    ):
        p50, worst, tokens = time_brief(services)
        insights = services.insights.count()
        print(
            f"brief on {label}, {insights} insights: p50 {p50:.1f} ms, max {worst:.1f} ms, ~{tokens} tokens"
        )
        services.close()
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
