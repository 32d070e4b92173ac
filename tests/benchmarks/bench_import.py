"""Import benchmark: a generated 100k-message Slack export and a 100k-line WhatsApp chat.

Run: `.venv/bin/python tests/benchmarks/bench_import.py [--messages 100000] [--embedder hashing|local]`.
Prints messages/s and the split parse (validation pass) / store (SQLite + keyword index +
LanceDB upsert) / embed (the embedder's own time, measured by wrapping it). Figures are
recorded in docs/benchmarks/import.md.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from app.bootstrap import build_services
from app.core.embeddings.base import Embedder
from app.core.embeddings.factory import build_embedder
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, load_settings
from app.services.import_service import ImportOptions, ImportService

WORDS = [
    "deploy", "release", "budget", "review", "meeting", "lunch", "roadmap", "incident", "bug", "fix",
    "customer", "design", "sprint", "deadline", "invoice", "travel", "hotel", "flight", "dinner",
    "weekend", "report", "draft", "slides", "numbers", "launch",
]  # fmt: skip


class TimedEmbedder:
    """Wraps an embedder and adds up the seconds spent inside it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.cpu_seconds += time.process_time() - cpu

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18)))


def make_slack_export(path: Path, messages: int, rng: random.Random) -> None:
    users = [
        {"id": f"U{i:05d}", "team_id": "TBENCH", "name": f"user{i}", "profile": {"real_name": f"User {i}"}}
        for i in range(200)
    ]
    channels = [{"id": f"C{i:04d}", "name": f"channel-{i}"} for i in range(20)]
    per_day = 250
    start = datetime(2023, 1, 1, tzinfo=UTC)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("users.json", json.dumps(users))
        archive.writestr("channels.json", json.dumps(channels))
        written = 0
        day = 0
        while written < messages:
            for channel in channels:
                if written >= messages:
                    break
                count = min(per_day, messages - written)
                base = start + timedelta(days=day)
                entries = []
                for n in range(count):
                    ts = f"{int(base.timestamp()) + n * 60}.{n:06d}"
                    entry = {
                        "type": "message",
                        "ts": ts,
                        "user": rng.choice(users)["id"],
                        "text": f"<@{rng.choice(users)['id']}> {sentence(rng)}",
                    }
                    if n % 10 == 1:
                        entry["thread_ts"] = entries[-1]["ts"]
                    entries.append(entry)
                archive.writestr(f"{channel['name']}/{base:%Y-%m-%d}.json", json.dumps(entries))
                written += count
            day += 1


def make_whatsapp_chat(path: Path, lines: int, rng: random.Random) -> None:
    people = ["Anna", "Ben", "Carla", "Dmitri", "Eve"]
    moment = datetime(2021, 1, 1, 8, 0)
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < lines:
            moment += timedelta(seconds=rng.randint(5, 600))
            out.write(f"{moment:%d/%m/%Y, %H:%M} - {rng.choice(people)}: {sentence(rng)}\n")
            written += 1
            if rng.random() < 0.05 and written < lines:
                out.write(f"{sentence(rng)}\n")  # a continuation line of a multi-line message
                written += 1


def bench(name: str, fmt: str, path: Path, embedder: Embedder, options: ImportOptions) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data_dir:
        timed = TimedEmbedder(embedder)
        services = build_services(load_settings(Path(data_dir)), embedder=timed, repair=False)
        try:
            imports = ImportService(services.memory, user_id=services.settings.user_id)
            cpu_start = time.process_time()
            preview = imports.preview(fmt, path, options)
            cpu_parse = time.process_time() - cpu_start
            report = imports.run(fmt, path, options)
            cpu_total = time.process_time() - cpu_start - cpu_parse  # parse again + store + embed
            again_start = time.perf_counter()
            again = imports.run(fmt, path, options)
            again_seconds = time.perf_counter() - again_start
        finally:
            services.close()
    assert report.result is not None and again.result is not None
    assert preview.messages == report.preview.messages
    count = report.preview.messages
    store = report.store_seconds - timed.seconds
    total = report.parse_seconds + report.store_seconds
    figures = {
        "messages": count,
        "imported": report.result.imported,
        "parse_s": report.parse_seconds,
        "store_s": store,
        "embed_s": timed.seconds,
        "total_s": total,
        "msgs_per_s": count / total,
        "parse_msgs_per_s": count / report.parse_seconds,
        "cpu_parse_s": cpu_parse,
        "cpu_store_s": cpu_total - cpu_parse - timed.cpu_seconds,
        "cpu_embed_s": timed.cpu_seconds,
        "reimport_s": again_seconds,
        "reimport_duplicates": again.result.duplicates,
    }
    print(
        f"{name}: {count} messages in {total:.1f} s = {figures['msgs_per_s']:.0f} msg/s | "
        f"parse {report.parse_seconds:.1f} s ({figures['parse_msgs_per_s']:.0f} msg/s), "
        f"store {store:.1f} s, embed {timed.seconds:.1f} s ({embedder.model_id}) | "
        f"re-import {again_seconds:.1f} s, {again.result.imported} new, "
        f"{again.result.duplicates} duplicates\n"
        f"  CPU seconds (all threads): parse {cpu_parse:.1f}, store {figures['cpu_store_s']:.1f}, "
        f"embed {timed.cpu_seconds:.1f}"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing")
    args = parser.parse_args()
    rng = random.Random(7)
    if args.embedder == "local":
        embedder: Embedder = build_embedder(EmbeddingSettings(provider="local"))
    else:
        embedder = HashingEmbedder(384)
    with tempfile.TemporaryDirectory() as work:
        slack = Path(work) / "slack-export.zip"
        chat = Path(work) / "WhatsApp Chat with Bench.txt"
        start = time.perf_counter()
        make_slack_export(slack, args.messages, rng)
        make_whatsapp_chat(chat, args.messages, rng)
        print(
            f"generated inputs in {time.perf_counter() - start:.1f} s "
            f"(slack zip {slack.stat().st_size / 1e6:.1f} MB, whatsapp {chat.stat().st_size / 1e6:.1f} MB)"
        )
        results = {
            "slack": bench("slack", "slack", slack, embedder, ImportOptions()),
            "whatsapp": bench("whatsapp", "whatsapp", chat, embedder, ImportOptions(tz="UTC")),
        }
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
