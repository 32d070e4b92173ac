"""Cross-lingual retrieval of the offline embedders on Strata's own translation set, plus their speed.

For each language (ru, zh, es, de) and model: the mean cosine between an English chat sentence and
its translation, and top-1 accuracy both ways (a translated query against the 32 English
sentences; an English query against the 32 translations). Speed: documents per second for a batch
of chat sentences and the median query latency, measured in the same process.

    python tests/benchmarks/bench_multilingual.py [--models local,multilingual]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings

SET = Path(__file__).parent / "data" / "crosslingual.json"
LANGUAGES = ("ru", "zh", "es", "de")


def load_pairs() -> list[dict[str, str]]:
    return json.loads(SET.read_text(encoding="utf-8"))["pairs"]


def crosslingual_scores(embedder, pairs: list[dict[str, str]]) -> dict[str, dict[str, float]]:
    """Per language: mean pair cosine, top-1 accuracy (foreign → English) and (English → foreign)."""
    english = embedder.embed_documents([p["en"] for p in pairs])
    english_queries = np.vstack([embedder.embed_query(p["en"]) for p in pairs])
    out: dict[str, dict[str, float]] = {}
    for lang in LANGUAGES:
        foreign = embedder.embed_documents([p[lang] for p in pairs])
        foreign_queries = np.vstack([embedder.embed_query(p[lang]) for p in pairs])
        to_english = foreign_queries @ english.T
        to_foreign = english_queries @ foreign.T
        expected = np.arange(len(pairs))
        out[lang] = {
            "pair_cosine": float(np.mean(np.sum(english * foreign, axis=1))),
            "top1_to_en": float(np.mean(to_english.argmax(axis=1) == expected)),
            "top1_from_en": float(np.mean(to_foreign.argmax(axis=1) == expected)),
        }
    return out


def speed(embedder, pairs: list[dict[str, str]]) -> tuple[float, float]:
    """(documents per second over 128 mixed-language sentences, median query latency in ms)."""
    texts = [p[lang] for p in pairs for lang in ("en", *LANGUAGES)][:128]
    embedder.embed_documents(texts[:4])  # load and warm up
    started = time.perf_counter()
    embedder.embed_documents(texts)
    docs_per_s = len(texts) / (time.perf_counter() - started)
    latencies = []
    for i, pair in enumerate(pairs):
        started = time.perf_counter()
        embedder.embed_query(f"{pair['en']} #{i}")  # unique text: no query cache hits
        latencies.append((time.perf_counter() - started) * 1000)
    return docs_per_s, statistics.median(latencies)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="local,multilingual")
    args = parser.parse_args()
    pairs = load_pairs()
    print(f"{len(pairs)} sentence pairs; load average {os.getloadavg()[0]:.2f}")
    for provider in args.models.split(","):
        embedder = build_embedder(EmbeddingSettings(provider=provider))
        scores = crosslingual_scores(embedder, pairs)
        docs_per_s, query_ms = speed(embedder, pairs)
        print(f"\n{provider} ({embedder.model_id}): {docs_per_s:.1f} docs/s, query p50 {query_ms:.1f} ms")
        print("lang  pair cosine  top-1 →en  top-1 en→")
        for lang, row in scores.items():
            print(
                f"{lang:4}  {row['pair_cosine']:11.3f}  {row['top1_to_en']:9.2f}  {row['top1_from_en']:9.2f}"
            )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
