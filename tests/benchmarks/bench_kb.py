"""Knowledge-base ingest benchmark: a generated 100-page PDF and 50-slide PPTX, time split parse/split/embed/store.

Run: .venv/bin/python tests/benchmarks/bench_kb.py [--embedder local|hashing]
Goal: embedder-bound, i.e. parse + split ≤ 15% of the total.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "knowledge_base"))

import kbfiles  # noqa: E402

from app.core.embeddings.hashing import HashingEmbedder  # noqa: E402
from knowledge_base.chunking import Chunker  # noqa: E402
from knowledge_base.parsing import parse_document  # noqa: E402

_WORDS = (
    "memory local search index vector keyword chunk document slide page budget quarter launch review team "
    "decision action owner deadline meeting notes customer product design latency storage summary archive "
    "privacy embed model query result ranking fusion policy forget tier recall precision import export"
).split()


def _paragraph(rng: random.Random, words: int) -> str:
    sentence: list[str] = []
    out: list[str] = []
    for _ in range(words):
        sentence.append(rng.choice(_WORDS))
        if len(sentence) >= rng.randint(8, 16):
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    return " ".join(out)


def make_pdf(pages: int = 100) -> bytes:
    rng = random.Random(1)
    # ~2,600 characters a page: a dense page of prose at 10 pt.
    return kbfiles.pdf_bytes([_paragraph(rng, 55) + "\n" + _paragraph(rng, 55) + "\n" + _paragraph(rng, 55)
                              + "\n" + _paragraph(rng, 55) for _ in range(pages)], title="Benchmark PDF")


def make_pptx(slides: int = 50) -> bytes:
    rng = random.Random(2)
    return kbfiles.pptx_bytes(
        [(f"Slide {i} {rng.choice(_WORDS)}", [_paragraph(rng, 14) for _ in range(5)], _paragraph(rng, 60))
         for i in range(1, slides + 1)],
        title="Benchmark deck",
    )


def choose_embedder(name: str):
    """The real local MiniLM when asked for and installed, else the hashing embedder (said so in the output)."""
    if name == "local":
        try:
            from app.core.embeddings.factory import build_embedder
            from app.core.settings import EmbeddingSettings

            embedder = build_embedder(EmbeddingSettings(provider="local"), None)
            embedder.embed_documents(["warm up"])
            return embedder
        except Exception as exc:  # model not installed / branch not merged: say so, fall back
            print(f"local embedder unavailable ({exc}); using HashingEmbedder")
    return HashingEmbedder(384)


def bench(name: str, data: bytes, units: int, unit_name: str, embedder, store=None) -> dict[str, float]:
    t0 = time.perf_counter()
    parsed = parse_document(data, name)
    t1 = time.perf_counter()
    chunks = Chunker().split(parsed)
    t2 = time.perf_counter()
    embedder.embed_documents([c.embedding_text for c in chunks])
    t3 = time.perf_counter()
    stored = 0.0
    if store is not None:
        stored = store(name, data)
    total = (t3 - t0) + stored
    figures = {"parse": t1 - t0, "split": t2 - t1, "embed": t3 - t2, "store": stored, "total": total}
    share = (figures["parse"] + figures["split"]) / total * 100
    print(
        f"{name}: {units} {unit_name}, {len(data) / 1e6:.2f} MB, {len(chunks)} chunks | "
        f"parse {figures['parse'] * 1000:.0f} ms, split {figures['split'] * 1000:.0f} ms, "
        f"embed {figures['embed'] * 1000:.0f} ms"
        + (f", full ingest (service) {stored * 1000:.0f} ms" if store else "")
        + f" | {units / (t3 - t0):.1f} {unit_name}/s parse+split+embed | parse+split = {share:.1f}% of total"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", choices=["local", "hashing"], default="local")
    args = parser.parse_args()
    embedder = choose_embedder(args.embedder)
    print(f"embedder: {embedder.model_id} ({embedder.dimensions}-d)")
    pdf, pptx = make_pdf(), make_pptx()
    with tempfile.TemporaryDirectory():
        bench("bench-100-pages.pdf", pdf, 100, "pages", embedder)
        bench("bench-50-slides.pptx", pptx, 50, "slides", embedder)


if __name__ == "__main__":
    main()
