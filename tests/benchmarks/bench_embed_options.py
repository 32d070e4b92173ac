"""ONNX Runtime options on the shipped MiniLM: throughput ratios in one process, agreement with the default.

    .venv/bin/python tests/benchmarks/bench_embed_options.py [--texts 1500] [--rounds 3]

Each variant embeds the same LoCoMo turns (AAAK-like chat lines; synthetic chat when the dataset
is absent); variants are interleaved round by round, so load on the shared machine hits them all
alike, and each figure is a ratio to the default in the same round. Agreement: mean and minimum
cosine with the default's vectors, and top-10 neighbour overlap among the texts. The dynamic int8
variant needs the optional `onnx` package (quantization tooling); it is skipped without it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from tests.benchmarks.locomo_data import DATA


def sample_texts(count: int) -> list[str]:
    if DATA.exists():
        conversations = json.loads(DATA.read_text(encoding="utf-8"))
        turns = [
            f"{turn['speaker']}: {turn['text']}"
            for conv in conversations
            for key, session in conv["conversation"].items()
            if key.startswith("session_") and isinstance(session, list)
            for turn in session
        ]
        return turns[:count]
    rng = random.Random(7)
    words = [
        "we",
        "meeting",
        "tomorrow",
        "budget",
        "release",
        "deploy",
        "server",
        "coffee",
        "lunch",
        "review",
        "ticket",
        "design",
    ]
    return [" ".join(rng.choices(words, k=rng.randint(3, 30))) for _ in range(count)]


def top10(vectors: np.ndarray) -> np.ndarray:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -2)
    return np.argsort(-sims, axis=1)[:, :10]


def agreement(reference: np.ndarray, other: np.ndarray) -> dict[str, float]:
    cos = np.sum(reference * other, axis=1)
    a, b = top10(reference), top10(other)
    overlap = [len(set(x) & set(y)) / 10 for x, y in zip(a, b, strict=True)]
    return {"cos_mean": float(cos.mean()), "cos_min": float(cos.min()), "top10": float(np.mean(overlap))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = sample_texts(args.texts)
    shuffled = texts[:]
    random.Random(1).shuffle(shuffled)
    variants: dict[str, Callable[[list[str]], np.ndarray]] = {}

    def make(**kwargs: object) -> Callable[[list[str]], np.ndarray]:
        embedder = OnnxMiniLMEmbedder(**kwargs)  # type: ignore[arg-type]
        embedder.load()
        embedder.embed_documents(texts[:8])  # warm-up
        return embedder.embed_documents

    variants["default (2 threads, ALL, sorted, batch 32)"] = make()
    variants["1 thread"] = make(threads=1)
    variants["graph opt BASIC"] = make(graph_optimization="basic")
    variants["graph opt EXTENDED"] = make(graph_optimization="extended")
    variants["no length sorting"] = make(sort_by_length=False)
    variants["batch 16"] = make(batch_size=16)
    variants["batch 64"] = make(batch_size=64)
    try:
        from tests.benchmarks.quantize_int8 import dynamic_int8_model

        with tempfile.TemporaryDirectory() as tmp:

            def quantized(source: Path) -> Path:
                return dynamic_int8_model(source, Path(tmp))

            variants["dynamic int8 activations"] = make(model_transform=quantized)
            variants["dynamic int8 activations, 1 thread"] = make(model_transform=quantized, threads=1)
            run(variants, texts, shuffled, args.rounds)
    except ImportError as exc:
        print(f"dynamic int8 skipped: {exc}")
        run(variants, texts, shuffled, args.rounds)


def run(
    variants: dict[str, Callable[[list[str]], np.ndarray]], texts: list[str], order: list[str], rounds: int
) -> None:
    load = os.getloadavg()
    print(f"{len(texts)} texts, {rounds} rounds, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    names = list(variants)
    rates: dict[str, list[float]] = {n: [] for n in names}
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            began = time.perf_counter()
            variants[name](order)
            rates[name].append(len(order) / (time.perf_counter() - began))
        for name in names:
            ratios[name].append(rates[name][-1] / rates[names[0]][-1])
    reference = variants[names[0]](texts)
    for name in names:
        agree = agreement(reference, variants[name](texts))
        print(
            f"  {name:42s} {statistics.median(rates[name]):7.1f} texts/s  "
            f"ratio {statistics.median(ratios[name]):.2f} (min {min(ratios[name]):.2f})  "
            f"cos mean {agree['cos_mean']:.4f} min {agree['cos_min']:.4f}  "
            f"top-10 overlap {agree['top10']:.3f}"
        )
    load = os.getloadavg()
    print(f"load average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
