"""Search precision on a mixed archive: answers at rank 1, and no hits at all for unrelated queries.

The archive (`data/precision/`) is one person's chat history (160 messages over Slack, Telegram,
WhatsApp, Discord and e-mail) and five documents, written for this benchmark. Each query names
its one right answer, or none: nonsense and unrelated queries must return no hit (the relevance
floor). Search is unified (messages and documents, `include=["documents"]`) with default settings.

Goals (issue 12): unrelated queries return 0 hits in >= 95 % of cases; answerable queries have
the answer at rank 1 in >= 80 % and in the top 3 in >= 95 %.

    python tests/benchmarks/bench_precision.py [--embedder local|multilingual|hashing] [--show-misses]
        [--query-activations int8|float]
        [--variant FIELD=VALUE,...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock, datetime_to_ms
from app.core.domain import RawMessage, SearchHit
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.bench_locomo import with_field

DATA = Path(__file__).parent / "data" / "precision"
# The archive's "now": a few days after its last message.
NOW = datetime.fromisoformat("2026-11-21T12:00:00+00:00")


@dataclass(frozen=True)
class Query:
    text: str
    expect: dict[str, str] | None
    also: tuple[dict[str, str], ...] = ()

    def answered_by(self, hit: SearchHit) -> bool:
        assert self.expect is not None
        return any(is_answer(hit, expect) for expect in (self.expect, *self.also))


def load_messages() -> list[RawMessage]:
    data = json.loads((DATA / "messages.json").read_text("utf-8"))
    messages = []
    for channel in data["channels"]:
        start = datetime.fromisoformat(channel["start"].replace("Z", "+00:00"))
        for i, (person, text) in enumerate(channel["messages"]):
            at = start + timedelta(hours=channel["step_hours"] * i)
            messages.append(
                RawMessage(
                    platform=channel["platform"],
                    message_id=f"{channel['channel']}-{i}",
                    channel=channel["channel"],
                    person=person,
                    timestamp=datetime_to_ms(at),
                    content=text,
                )
            )
    return messages


def load_queries() -> list[Query]:
    rows = json.loads((DATA / "queries.json").read_text("utf-8"))["queries"]
    return [Query(row["q"], row["expect"], tuple(row.get("also", ()))) for row in rows]


def build_archive(workdir: Path, embedder: str, query_activations: str = "float") -> Services:
    embedding = EmbeddingSettings(provider=embedder, query_activations=query_activations)  # type: ignore[arg-type]
    settings = Settings(data_dir=workdir, embedding=embedding)
    services = build_services(settings, clock=FixedClock(datetime_to_ms(NOW)))
    services.memory.ingest(load_messages())
    for document in sorted((DATA / "documents").iterdir()):
        services.knowledge.add_file(document)
    if services.memory.keys is not None:
        services.memory.keys.wait()  # sentence keys are built in the background after ingest
    return services


def is_answer(hit: SearchHit, expect: dict[str, str]) -> bool:
    if "document" in expect:
        if hit.kind != "chunk" or hit.extra.get("file_name") != expect["document"]:
            return False
    elif hit.kind != "message" or hit.channel != expect["channel"]:
        return False
    phrase = expect.get("contains")
    return phrase is None or phrase.lower() in hit.content.lower()


def evaluate(services: Services, queries: list[Query], *, show_misses: bool) -> dict[str, Any]:
    ranks: list[int | None] = []
    empty_for_unrelated: list[bool] = []
    for query in queries:
        hits = services.memory.search(query.text, limit=10, include=["documents"])
        if query.expect is None:
            empty_for_unrelated.append(not hits)
            if hits and show_misses:
                print(f"  unrelated but {len(hits)} hits: {query.text!r} → {hits[0].content[:70]!r}")
            continue
        rank = next((i for i, h in enumerate(hits, start=1) if query.answered_by(h)), None)
        ranks.append(rank)
        if show_misses and rank != 1:
            top = hits[0].content[:70] if hits else "(no hits)"
            print(f"  rank {rank}: {query.text!r} → top {top!r}")
    answered = len(ranks)
    return {
        "answerable": answered,
        "rank1": sum(r == 1 for r in ranks) / answered,
        "top3": sum(r is not None and r <= 3 for r in ranks) / answered,
        "found": sum(r is not None for r in ranks) / answered,
        "unrelated": len(empty_for_unrelated),
        "unrelated_empty": sum(empty_for_unrelated) / len(empty_for_unrelated),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="local", choices=["local", "multilingual", "hashing"])
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument(
        "--query-activations", default="float", choices=["int8", "float"], help="embedding.query_activations"
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="also run with SearchConfig fields set"
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="strata-precision-"))
    services = build_archive(workdir, args.embedder, args.query_activations)
    searcher = services.memory.searcher
    try:
        result = evaluate(services, load_queries(), show_misses=args.show_misses)
        default = searcher.config
        runs = [("default", result)]
        for label, config in [
            ("without sentence keys", replace(default, sentence_keys=False)),
            *((v, with_field(default, v)) for v in args.variant),
        ]:
            searcher.config = config
            runs.append((label, evaluate(services, load_queries(), show_misses=args.show_misses)))
        searcher.config = default
    finally:
        services.close()
    for label, figures in runs:
        print(
            f"{label}: embedder {args.embedder}, {args.query_activations} queries; "
            f"{figures['answerable']} answerable queries: rank 1 "
            f"{figures['rank1']:.2f}, top 3 {figures['top3']:.2f}, found in top 10 {figures['found']:.2f}; "
            f"{figures['unrelated']} unrelated queries with no hit: {figures['unrelated_empty']:.2f} "
            f"(load average {os.getloadavg()[0]:.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
