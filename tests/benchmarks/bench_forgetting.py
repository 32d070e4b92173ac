"""Forgetting cycle time at 10k and 100k records with 500 candidates per tier (and how it scales).

Run: .venv/bin/python tests/benchmarks/bench_forgetting.py [--sizes 10000 100000] [--candidates 500]
     .venv/bin/python tests/benchmarks/bench_forgetting.py --archive DIR   # an existing data dir

`--archive` runs the cycle on a built archive (e.g. a COPY of the 1M bulk archive made by
`bench_search.py --build bulk --workdir`; the run changes it) with the settings' own embedder and
reports wall and CPU time, peak RSS sampled during the cycle, and the rows it touched.

Rows are bulk-inserted straight into SQLite (plus their vectors into LanceDB) so the set-up is
quick; the cycle itself goes through the real service: lock, index-driven scan, plan with
rule-based summaries, one transaction per group, re-embedding of promoted rows, summary vectors.
Non-candidates (young short-tier rows, long-tier rows, archived rows) fill the rest, so the
figures show whether cost follows the candidates or the table size.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from sqlalchemy import func, insert, select

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.clock import DAY_MS, FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.ann import INDEX_MIN_ROWS
from app.core.index.message_kind import vector_columns
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.messages import vector_key
from app.core.storage.models import RawMessageRow, User

NOW = 1_772_409_600_000
GROUP = 5
WORDS = [
    "budget",
    "launch",
    "invoice",
    "deadline",
    "review",
    "design",
    "hiring",
    "roadmap",
    "bug",
    "customer",
    "release",
    "meeting",
    "migration",
    "ledger",
    "beta",
    "export",
    "metrics",
    "onboarding",
    "incident",
    "followup",
    "contract",
    "pricing",
]


def _text(rng: random.Random) -> str:
    words = rng.sample(WORDS, 6)
    return f"We discussed the {words[0]} and the {words[1]}. {words[2].title()} needs a {words[3]} by Friday."


def populate(svc, total: int, candidates: int, rng: random.Random) -> None:
    """Rows in batches (never a million dicts or ORM objects at once), then their vectors."""
    made = 0

    def row(stage: str, age_days: float, channel: str, archived: bool = False) -> dict:
        nonlocal made
        ts = NOW - int(age_days * DAY_MS)
        made += 1
        return {
            "message_id": f"b{made}",
            "platform": "slack",
            "user_id": "local",
            "bot_id": None,
            "channel": channel,
            "person": "team",
            "timestamp": ts,
            "created_at": ts,
            "content": _text(rng),
            "attachments": [],
            "metadata_": {},
            "memory_stage": stage,
            "access_count": rng.choice([0, 0, 1, 9]),
            "importance_score": None,
            "archived_at": NOW if archived else None,
            "is_pinned": False,
            "text_hash": "",
            "embedding_model": svc.embedder.model_id,
            "embedding_content_hash": "bench",
            "embedding_dimensions": svc.embedder.dimensions,
        }

    def rows():
        # Candidates: groups of 5 in distinct (day, channel) buckets.
        for tier, first_day in (("short", 8), ("mid", 91)):
            for g in range(candidates // GROUP):
                for i in range(GROUP):
                    step = 1 if tier == "short" else 7
                    yield row(tier, first_day + 0.5 + g // 20 * step + i / 1000, f"c{g % 20}")
        for i in range(total - made):
            kind = i % 3
            if kind == 0:
                yield row("short", rng.uniform(0, 6.9), f"c{i % 50}")  # too young
            elif kind == 1:
                yield row("long", rng.uniform(200, 900), f"c{i % 50}")  # no further tier
            else:
                yield row("short", rng.uniform(8, 400), f"c{i % 50}", archived=True)  # already archived

    with svc.db.write() as session:
        if session.get(User, "local") is None:
            session.add(User(id="local", display_name="local", created_at=NOW))
            session.flush()
        batch: list[dict] = []
        for r in rows():
            batch.append(r)
            if len(batch) == 5000:
                session.execute(insert(RawMessageRow), batch)
                batch = []
        if batch:
            session.execute(insert(RawMessageRow), batch)
    # Vectors for every row, so LanceDB updates run against a full-size table.
    gen = np.random.default_rng(1)
    cols = (RawMessageRow.id, RawMessageRow.user_id, RawMessageRow.platform, RawMessageRow.channel)
    cols += (
        RawMessageRow.person,
        RawMessageRow.memory_stage,
        RawMessageRow.timestamp,
        RawMessageRow.archived_at,
    )
    with svc.db.read() as session:
        result = session.execute(select(*cols).execution_options(yield_per=50_000))
        for part in result.partitions():
            vectors = gen.standard_normal((len(part), svc.embedder.dimensions)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            # A plain append, as scale_corpus does: merge_insert joins on every key already stored.
            collection = svc.processor.collection
            data: dict = {"key": [vector_key(r.id) for r in part]}
            columns = [vector_columns(r) for r in part]
            for column in collection.columns:
                data[column] = [c.get(column) for c in columns]
            data["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), vectors.shape[1])
            collection.table.add(pa.table(data, schema=collection.schema))
    if total >= INDEX_MIN_ROWS:  # as the app's background job would have by now
        svc.processor.corpus.ann().build()


def bench(total: int, candidates: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(provider="hashing"))
        settings.forgetting.max_candidates_per_tier = max(candidates, 3)
        svc = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder(), repair=False)
        try:
            t0 = time.perf_counter()
            populate(svc, total, candidates, random.Random(total))
            setup = time.perf_counter() - t0
            t0, c0 = time.perf_counter(), time.process_time()
            preview = svc.forgetting.preview()
            plan_s, plan_cpu = time.perf_counter() - t0, time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            before = _rss_mb()
            with PeakRss() as peak:
                report = svc.forgetting.run(trigger="bench")
            cycle, cycle_cpu = time.perf_counter() - t0, time.process_time() - c0
            assert report.status == "completed", report
            t = report.to_dict()["totals"]
            return {
                "records": total,
                "candidates/tier": candidates,
                "evaluated": t["evaluated"],
                "summaries": t["summarized"],
                "promoted": t["promoted"],
                "archived": t["archived"],
                "groups": len(preview.groups),
                "setup_s": setup,
                "preview_s": plan_s,
                "cycle_s": cycle,
                "preview_cpu": plan_cpu,
                "cycle_cpu": cycle_cpu,
                "rss": f"{peak.peak:.0f} (+{peak.peak - before:.0f})",
            }
        finally:
            svc.close()


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class PeakRss:
    """Samples this process's RSS every 50 ms while a phase runs (ru_maxrss would include set-up)."""

    def __init__(self) -> None:
        self.peak = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, _rss_mb())

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mb())


def bench_archive(data_dir: Path, candidates: int) -> None:
    """One preview and one real cycle on an existing data dir, with time, CPU, peak RSS and rows."""
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="local"))
    settings.forgetting.max_candidates_per_tier = max(candidates, 3)
    t0 = time.perf_counter()
    svc = build_services(settings, repair=False)
    print(f"open: {time.perf_counter() - t0:.1f} s, RSS {_rss_mb():.0f} MB", flush=True)
    try:
        with svc.db.read() as session:
            total = session.scalar(select(func.count()).select_from(RawMessageRow))
        print(f"records: {total:,}; load average {os.getloadavg()[0]:.1f}", flush=True)
        for phase in ("preview", "cycle"):
            before = _rss_mb()
            t0, c0 = time.perf_counter(), time.process_time()
            with PeakRss() as peak:
                if phase == "preview":
                    out = svc.forgetting.preview()
                    detail = f"{len(out.groups)} groups, {sum(len(g.records) for g in out.groups)} records"
                else:
                    report = svc.forgetting.run(trigger="bench")
                    t = report.to_dict()["totals"]
                    detail = (
                        f"status {report.status}, evaluated {t['evaluated']}, promoted {t['promoted']}, "
                        f"archived {t['archived']}, summaries {t['summarized']}"
                    )
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(
                f"{phase}: wall {wall:.2f} s, CPU {cpu:.2f} s, RSS {before:.0f} -> peak {peak.peak:.0f} MB "
                f"(+{peak.peak - before:.0f}); {detail}; load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    finally:
        svc.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--archive", type=Path, default=None, help="run on this existing data dir (it changes)"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--candidates", type=int, nargs="+", default=[500])
    args = parser.parse_args()
    if args.archive is not None:
        bench_archive(args.archive, args.candidates[0])
        return
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        "| records | candidates/tier | evaluated | summaries | promoted | archived "
        "| preview wall s | preview CPU s | cycle wall s | cycle CPU s | cycle peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        for cand in args.candidates:
            r = bench(size, cand)
            print(
                f"| {r['records']:,} | {r['candidates/tier']} | {r['evaluated']} | {r['summaries']} | "
                f"{r['promoted']} | {r['archived']} | {r['preview_s']:.2f} | {r['preview_cpu']:.2f} | "
                f"{r['cycle_s']:.2f} | {r['cycle_cpu']:.2f} | {r['rss']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
