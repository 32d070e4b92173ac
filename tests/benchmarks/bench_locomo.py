"""Retrieval quality on LoCoMo (dev split): evidence recall@5/@10 through Strata's own search.

Every turn of the five conversations is imported as a message; every question (categories 1-4)
is asked through MemoryService.search, pooled over all conversations, with no filters.

    python tests/benchmarks/bench_locomo.py [--embedder local|hashing] [--workdir DIR]
        [--keyword-budget ROWS] [--activations float|int8] [--query-activations int8|float]
        [--variant FIELD=VALUE[,FIELD=VALUE]]... [--keyed FRACTIONS [--keyed-order id|random]]

Each `--variant` sets `SearchConfig` fields (e.g. `--variant nameless_vector=0`) and is measured
over the same import in the same run, after the default settings.

`--keyed 0.5,0.05,0` then measures the default settings on a partly keyed archive: only that
share of the messages keeps its sentence keys (the rest lose keys and stamps, as a bulk-imported
archive is while its keys are built), largest share first; `--keyed-order id` keeps the lowest
message ids (the order the repair job builds them in), `random` a seeded random subset. The next
run on the same `--workdir` builds the removed keys again before it measures.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


from sqlalchemy import select

from app.bootstrap import Services, build_services
from app.core.search.search_config import SearchConfig
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import RawMessageRow
from tests.benchmarks.locomo_data import CATEGORIES, DATA, load


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    parser.add_argument("--workdir", type=Path, default=None, help="reuse an imported data dir")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument(
        "--category", choices=sorted(CATEGORIES.values()), default=None, help="only this category's questions"
    )
    parser.add_argument(
        "--keyword-budget", type=int, default=None, help="search.keyword_row_budget (0 = unbounded)"
    )
    parser.add_argument("--pool", type=int, default=None, help="search.candidate_pool")
    parser.add_argument(
        "--activations",
        choices=["float", "int8"],
        default="float",
        help="int8: the local model with dynamically quantized activations (needs `onnx`)",
    )
    parser.add_argument(
        "--query-activations",
        choices=["int8", "float"],
        default="float",
        help="embedding.query_activations: queries only, against the stored vectors (reuse --workdir)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="SearchConfig fields to change for one more pass, e.g. neighbour_candidates=0",
    )
    parser.add_argument(
        "--keyed",
        default="",
        help="shares of messages that keep their sentence keys, one pass each (e.g. 0.5,0.05,0)",
    )
    parser.add_argument("--keyed-order", choices=["id", "random"], default="random")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="strata-locomo-"))
    embedding = EmbeddingSettings(provider=args.embedder, query_activations=args.query_activations)
    settings = Settings(data_dir=workdir, embedding=embedding)
    if args.keyword_budget is not None:
        settings.search.keyword_row_budget = args.keyword_budget
    if args.pool is not None:
        settings.search.candidate_pool = args.pool
    embedder = None
    if args.activations == "int8":
        from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
        from tests.benchmarks.quantize_int8 import dynamic_int8_model

        quantized = workdir / "model-int8"
        embedder = OnnxMiniLMEmbedder(model_transform=lambda source: dynamic_int8_model(source, quantized))
    services = build_services(settings, embedder=embedder)
    messages, questions = load()
    if args.category:
        questions = [q for q in questions if CATEGORIES[q.category] == args.category]
    if args.limit:
        questions = questions[: args.limit]
    started = time.perf_counter()
    result = services.memory.ingest(messages)
    print(
        f"imported {result.imported} turns ({result.duplicates} already there) "
        f"in {time.perf_counter() - started:.1f}s; {len(questions)} questions; "
        f"embedder {services.embedder.model_id}"
    )
    wait_for_keys(services)
    searcher = services.memory.searcher
    default = searcher.config
    passes: dict[str, list[float]] = {}
    for label in ["default", *args.variant]:
        searcher.config = default if label == "default" else replace(default, **parse_variant(default, label))
        print(f"\n== {label}")
        passes[label] = report(services, questions)
        for other in dict.fromkeys(["default", list(passes)[max(0, len(passes) - 2)]]):
            if other != label:
                print(moved(passes[other], passes[label], questions, other))
    searcher.config = default
    if args.keyed:
        shares = sorted((float(x) for x in args.keyed.split(",")), reverse=True)
        for share in shares:
            kept = keep_keys(services, share, args.keyed_order)
            order = args.keyed_order
            print(f"\n== sentence keys for {share:.0%} of the messages ({kept} keyed, {order} order)")
            label = f"keyed={share}"
            passes[label] = report(services, questions)
            print(moved(passes["default"], passes[label], questions, "default"))
    services.close()
    return 0


def keep_keys(services: Services, share: float, order: str) -> int:
    """Remove the sentence keys and stamps of all but `share` of the messages (see the module
    docstring); how many messages keep theirs. Shares are taken largest first, each a subset of
    the one before (the random order is seeded)."""
    keys = services.memory.keys
    if keys is None:
        raise SystemExit("--keyed needs search.sentence_keys on")
    with services.db.read() as session:
        ids = list(session.scalars(select(RawMessageRow.id).order_by(RawMessageRow.id)))
    if order == "random":
        random.Random(12).shuffle(ids)
    kept = round(len(ids) * share)
    gone = ids[kept:]
    keys.remove(gone)
    with services.db.write() as session:
        keys.source.forget(session, gone)
    return kept


def parse_variant(config: Any, text: str) -> dict[str, Any]:
    """'a=1,b=0.5' -> the SearchConfig fields, each converted to its default's type.

    `relevance.NAME=VALUE` sets a field of the relevance model (RelevanceModel) the message
    search uses, e.g. `relevance.frame_words=0` (other kinds keep theirs)."""
    nested = [p for p in text.split(",") if p.strip().startswith("relevance.")]
    plain = [p for p in text.split(",") if p not in nested]
    changes: dict[str, Any] = {}
    if nested:
        fusion = config.fusion.config
        model = fusion.relevance
        wanted = parse_variant(model, ",".join(p.strip().removeprefix("relevance.") for p in nested))
        changes["fusion"] = replace(config.fusion, config=replace(fusion, relevance=replace(model, **wanted)))
        if not plain:
            return changes
    types = {f.name: type(getattr(config, f.name)) for f in fields(config)}
    for part in plain:
        name, _, value = part.partition("=")
        kind = types.get(name.strip())
        if kind is None:
            raise SystemExit(f"unknown {type(config).__name__} field {name!r}; one of {sorted(types)}")
        if kind is bool:
            changes[name.strip()] = value.strip().lower() in {"1", "true", "yes", "on"}
        elif kind is type(None):
            changes[name.strip()] = None if value.strip() in {"", "none"} else int(value)
        else:
            changes[name.strip()] = kind(value)
    return changes


def with_field(config: SearchConfig, assignments: str) -> SearchConfig:
    """`config` with fields set from `name=value[,name=value]` (see parse_variant)."""
    return replace(config, **parse_variant(config, assignments))


def wait_for_keys(services: Services) -> None:
    """Sentence keys are built in the background after the import: build what is left now."""
    started = time.perf_counter()
    keys = services.memory.keys
    if keys is not None:
        done = keys.backlog.drain().embedded
        print(f"sentence keys: {done} key documents built in {time.perf_counter() - started:.1f}s")


def moved(before: list[float], after: list[float], questions: list[Any], label: str) -> str:
    """How many questions' R@10 went up and down against another pass, per category."""
    parts = []
    for cat, name in CATEGORIES.items():
        pairs = [(b, a) for b, a, q in zip(before, after, questions, strict=True) if q.category == cat]
        up = sum(a > b for b, a in pairs)
        down = sum(a < b for b, a in pairs)
        if up or down:
            parts.append(f"{name} {up} up / {down} down")
    return f"   moved against {label}: {', '.join(parts) or 'none'}"


def report(services: Any, questions: list[Any]) -> list[float]:
    """R@5 / R@10 per category for the searcher's current config; each question's R@10."""
    found: dict[int, dict[int, list[float]]] = {5: defaultdict(list), 10: defaultdict(list)}
    shares: list[float] = []
    started, cpu = time.perf_counter(), time.process_time()
    for q in questions:
        hits = services.memory.search(q.text, limit=10)
        ranked = [h.message_id for h in hits]
        for k in (5, 10):
            share = len(q.evidence & set(ranked[:k])) / len(q.evidence)
            found[k][q.category].append(share)
        shares.append(share)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    per = 1000 / len(questions)
    print(f"searched in {elapsed:.1f}s ({per * elapsed:.1f} ms/query, CPU {per * cpu:.1f} ms/query)")
    print(f"{'category':<14}{'n':>5}{'R@5':>8}{'R@10':>8}")
    for cat, name in CATEGORIES.items():
        n = len(found[10][cat])
        if n:
            r5 = sum(found[5][cat]) / n
            r10 = sum(found[10][cat]) / n
            print(f"{name:<14}{n:>5}{r5:>8.3f}{r10:>8.3f}")
    all5 = [x for v in found[5].values() for x in v]
    all10 = [x for v in found[10].values() for x in v]
    print(f"{'overall':<14}{len(all10):>5}{sum(all5) / len(all5):>8.3f}{sum(all10) / len(all10):>8.3f}")
    return shares


if __name__ == "__main__":
    raise SystemExit(main())
