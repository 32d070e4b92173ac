"""Live-sync throughput: fake Slack API on 127.0.0.1 -> slack-sdk -> connector -> processor.

Run: .venv/bin/python tests/benchmarks/bench_live_sync.py [N]
Prints fetch-only messages/s (HTTP + conversion) and full sync messages/s (fetch + store + embed
with the deterministic HashingEmbedder), so the connector's own cost is visible.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.clock import SystemClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.services.connector_service import ConnectorService
from connectors.base import ConnectorConfig
from connectors.retry import RetryPolicy
from connectors.secrets import FileSecretStore
from connectors.slack import SlackConnector
from tests.connectors.fake_slack import FakeSlack


def main(n: int) -> None:
    fake = FakeSlack()
    for i in range(n):
        fake.post(
            "C1" if i % 3 else "D1", f"{1700000000 + i}.000100", f"benchmark message {i} about topic {i % 97}"
        )
    with fake.server, tempfile.TemporaryDirectory() as tmp:
        base = {"base_url": fake.server.url + "/api/"}
        start = time.perf_counter()
        fetched = sum(
            len(b.messages)
            for b in SlackConnector(ConnectorConfig("slack", "slack", fake.token, base)).fetch(None)
        )
        fetch_s = time.perf_counter() - start

        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(provider="hashing"))
        services = build_services(settings, clock=SystemClock(), embedder=HashingEmbedder())
        connectors = ConnectorService(
            services.db,
            services.memory,
            FileSecretStore(Path(tmp) / "secrets.json"),
            SystemClock(),
            user_id="local",
            retry=RetryPolicy(),
        )
        connectors.add("slack", fake.token, options=base)
        start = time.perf_counter()
        report = connectors.sync("slack")
        sync_s = time.perf_counter() - start
        start = time.perf_counter()
        again = connectors.sync("slack", full=True)
        resync_s = time.perf_counter() - start
        services.close()
    print(f"messages: {n} (fetched {fetched}, imported {report.imported}, batches {report.batches})")
    print(f"fetch only (HTTP + convert): {fetch_s:.2f}s = {fetched / fetch_s:,.0f} msg/s")
    print(f"full sync (fetch + store + embed): {sync_s:.2f}s = {report.imported / sync_s:,.0f} msg/s")
    print(f"full re-sync, all duplicates: {resync_s:.2f}s = {again.duplicates / resync_s:,.0f} msg/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
