"""Insight quality on the issue-18 set: the whole path a user runs (ingest → generate → list), scored
per kind (precision, recall), owner accuracy, insights per real item, closed items detected.

    python tests/benchmarks/bench_insights_quality.py [--model] [--show]

--model uses the bundled MiniLM embedder instead of the deterministic hashing one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.bootstrap import Services, build_services  # noqa: E402
from app.core.clock import FixedClock, datetime_to_ms  # noqa: E402
from app.core.domain import RawMessage  # noqa: E402
from app.core.embeddings.hashing import HashingEmbedder  # noqa: E402
from app.core.settings import EmbeddingSettings, InsightSettings, Settings  # noqa: E402
from tests.benchmarks.insights_quality import harness  # noqa: E402

NOW = datetime_to_ms(datetime(2026, 3, 25, 12, 0, tzinfo=UTC))


def build(data_dir: Path, model: bool) -> Services:
    provider = "local" if model else "hashing"
    settings = Settings(
        data_dir=data_dir, embedding=EmbeddingSettings(provider=provider),
        insights=InsightSettings(identities=list(harness.ME)),
    )  # fmt: skip
    return build_services(settings, clock=FixedClock(NOW), embedder=None if model else HashingEmbedder())


def run(services: Services, scenarios: list[harness.Scenario]) -> list[harness.Found]:
    """Ingest every scenario, merge the people the set says are one, generate, read everything back."""
    raw = [
        RawMessage(platform=m.platform, message_id=m.message_id, channel=m.channel, person=m.person,
                   timestamp=m.timestamp, content=m.content)
        for s in scenarios for m in s.messages
    ]  # fmt: skip
    services.memory.ingest(raw)
    assert services.connectors is not None
    for s in scenarios:
        for display, pairs in s.contacts:
            services.connectors.identities.merge(pairs, display_name=display)
    services.insights.generate()
    return found(services)


def found(services: Services) -> list[harness.Found]:
    """Everything generated, done and dismissed items included (they leave only the default list)."""
    out = []
    for r in services.insights.list_insights(limit=500, lifecycle_state="all"):
        d = r.insight.draft
        # A question's "owner" in the set is the person it awaits an answer from.
        owner = d.addressed_to[0] if d.kind.value == "question" and d.addressed_to else d.owner
        closed = r.insight.lifecycle != "open"
        out.append(harness.Found(r.id, d.kind.value, d.title, frozenset(d.evidence), owner, closed))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", action="store_true", help="MiniLM embedder instead of hashing")
    parser.add_argument("--show", action="store_true", help="print misses, false insights, duplicates")
    parser.add_argument("--heldout", action="store_true", help="the held-out set instead of the tuning set")
    args = parser.parse_args()
    scenarios = harness.load(harness.HELDOUT_FILE if args.heldout else harness.SET_FILE)
    with tempfile.TemporaryDirectory(prefix="strata-insq-") as tmp:
        services = build(Path(tmp) / "data", args.model)
        started = time.perf_counter()
        result = run(services, scenarios)
        elapsed = time.perf_counter() - started
        report = harness.score(scenarios, result)
        services.close()
    embedder = "MiniLM" if args.model else "hashing"
    which = "held-out" if args.heldout else "tuning"
    print(
        f"## insight quality ({which} set): {len(scenarios)} scenarios, {report.messages} messages,"
        f" {embedder} embedder, {elapsed:.1f}s, load {os.getloadavg()[0]:.2f}"
    )
    print("\n".join(report.lines()))
    if args.show:
        for name, k in report.kinds.items():
            for line in k.misses:
                print(f"  MISS  {line}")
            for line in k.false:
                print(f"  FALSE {name}: {line}")
        for line in report.duplicates:
            print(f"  DUP   {line}")
        for line in report.owner_wrong:
            print(f"  OWNER {line}")
        for line in report.not_closed:
            print(f"  NOT-CLOSED {line}")
        for line in report.wrongly_closed:
            print(f"  CLOSED-WRONGLY {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
