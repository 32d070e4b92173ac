"""Benchmark the local MiniLM embedder: start-up, throughput on chat messages and long chunks, peak RSS.

Run: .venv/bin/python tests/benchmarks/bench_embedder.py [--batch-size 32] [--threads N]
Each measurement runs in a fresh subprocess so peak RSS belongs to that workload alone.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time

_VOCABULARY = (
    "the a we you they meeting tomorrow budget release deploy server crash coffee lunch friday "
    "review ticket customer invoice design draft ship fix bug test merge branch call notes plan "
    "idea team sprint demo slides report numbers launch office remote travel hotel flight "
    "thanks please maybe sure ok great sounds good later today morning evening weekend"
)
WORDS = _VOCABULARY.split()


def chat_messages(count: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choices(WORDS, k=rng.randint(3, 25))).capitalize() + "." for _ in range(count)]


def long_chunks(count: int, rng: random.Random, chars: int = 1000) -> list[str]:
    chunks = []
    for _ in range(count):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < chars:
            words.append(rng.choice(WORDS))
        chunks.append(" ".join(words)[:chars])
    return chunks


def run_workload(name: str, batch_size: int, threads: int | None) -> dict[str, float]:
    from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder

    rng = random.Random(42)
    texts = {"startup": ["hello"], "chat": chat_messages(2000, rng), "chunks": long_chunks(200, rng)}[name]
    started = time.perf_counter()
    embedder = OnnxMiniLMEmbedder(batch_size=batch_size, threads=threads)
    constructed = time.perf_counter()
    if name == "startup":
        embedder.embed_query("hello")
        done = time.perf_counter()
        return {"construct_s": constructed - started, "construct_plus_first_embed_s": done - started}
    embedder.load()
    embedder.embed_documents(texts[:4])  # warm-up: first-run allocations are not throughput
    began = time.perf_counter()
    embedder.embed_documents(texts)
    elapsed = time.perf_counter() - began
    return {"texts": len(texts), "seconds": elapsed, "texts_per_s": len(texts) / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--workload", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.workload:
        result = run_workload(args.workload, args.batch_size, args.threads)
        # ru_maxrss is KiB on Linux: the peak of this whole process, model and Python included.
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    print(f"OnnxMiniLMEmbedder, batch_size={args.batch_size}, threads={args.threads or 'default'}")
    for workload in ("startup", "chat", "chunks"):
        command = [sys.executable, __file__, "--workload", workload, "--batch-size", str(args.batch_size)]
        if args.threads:
            command += ["--threads", str(args.threads)]
        out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        print(f"  {workload:8s} " + "  ".join(f"{k}={v:.3f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
