"""Rule-based insight extraction: precision / recall per kind on the labelled chat sets, owner and
due-date accuracy, extraction speed, and (with --locomo) a full generation run on LoCoMo turns.

    python tests/benchmarks/bench_insights_eval.py [--locomo] [--examples N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "insights"))

from insights_eval_loader import load_harness  # noqa: E402

from insights.extractors.rules import RuleExtractor  # noqa: E402

harness = load_harness()
HELDOUT = harness.EVAL_FILE.with_name("heldout.txt")


def report(title: str, convs: list) -> None:  # type: ignore[type-arg]
    scores = harness.evaluate(RuleExtractor(known_names=harness.ME).extract, convs)
    print(f"\n## {title}: {len(convs)} conversations, {harness.message_count(convs)} messages")
    print(f"{'kind':<12} {'P':>5} {'R':>5} {'tp':>4} {'fp':>4} {'fn':>4}  owner    due")
    for kind, s in scores.items():
        owner = f"{s.owner_ok}/{s.owner_n}" if s.owner_n else "-"
        due = f"{s.due_ok}/{s.due_n}" if s.due_n else "-"
        print(f"{kind:<12} {s.precision:5.2f} {s.recall:5.2f} {s.tp:4} {s.fp:4} {s.fn:4}  {owner:<8} {due}")
    t = harness.overall(scores)
    print(f"{'all':<12} {t.precision:5.2f} {t.recall:5.2f} {t.tp:4} {t.fp:4} {t.fn:4}")


def speed(convs: list) -> None:  # type: ignore[type-arg]
    extractor = RuleExtractor(known_names=harness.ME)
    n = harness.message_count(convs)
    rounds = 20
    started = time.perf_counter()
    for _ in range(rounds):
        for c in convs:
            extractor.extract(c.messages)
    elapsed = time.perf_counter() - started
    print(f"\nrule extractor: {n * rounds / elapsed:,.0f} messages/s ({rounds} rounds over {n} messages)")


def locomo(examples: int) -> None:
    from app.bootstrap import build_services
    from app.core.settings import EmbeddingSettings, Settings
    from tests.benchmarks.locomo_data import DATA, load

    if not DATA.exists():
        print(f"\nLoCoMo skipped: {DATA} not found")
        return
    workdir = Path(tempfile.mkdtemp(prefix="strata-insights-"))
    services = build_services(Settings(data_dir=workdir, embedding=EmbeddingSettings(provider="hashing")))
    messages, _ = load()
    services.memory.ingest(messages)
    started = time.perf_counter()
    first = services.insights.generate()
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    second = services.insights.generate()
    again = time.perf_counter() - started
    items = services.insights.list_insights(limit=500)
    kinds = Counter(r.insight.kind.value for r in items)
    print(f"\n## LoCoMo dev ({len(messages)} turns, {first.groups_total} conversations, hashing embedder)")
    print(f"first run {elapsed:.1f}s: {first.created} insights {dict(kinds)}")
    print(f"second run {again:.2f}s: {second.groups_processed} conversations re-read (incremental)")
    for kind in kinds:
        for r in [r for r in items if r.insight.kind.value == kind][:examples]:
            print(f"  [{kind}] {r.insight.draft.title}")
    services.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--locomo", action="store_true", help="also generate on the LoCoMo dev turns")
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()
    dev, held = harness.load(), harness.load(HELDOUT)
    report("development set (rules were improved on it)", dev)
    report("second set (written after the rules; first-run figures: docs/benchmarks/insights.md)", held)
    report("both", dev + held)
    speed(dev + held)
    if args.locomo:
        locomo(args.examples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
