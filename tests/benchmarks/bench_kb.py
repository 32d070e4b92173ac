"""Knowledge-base ingest benchmark: a generated 100-page PDF and 50-slide PPTX, time per stage.

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

import kbfiles

from app.bootstrap import Services, build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import load_settings
from knowledge_base.chunking import Chunker
from knowledge_base.parsing import parse_document

_WORDS = [
    "memory",
    "local",
    "search",
    "index",
    "vector",
    "keyword",
    "chunk",
    "document",
    "slide",
    "page",
    "budget",
    "quarter",
    "launch",
    "review",
    "team",
    "decision",
    "action",
    "owner",
    "deadline",
    "meeting",
    "notes",
    "customer",
    "product",
    "design",
    "latency",
    "storage",
    "summary",
    "archive",
    "privacy",
    "embed",
    "model",
    "query",
    "result",
    "ranking",
    "fusion",
    "policy",
    "forget",
    "tier",
    "recall",
    "precision",
    "import",
    "export",
]


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
    return kbfiles.pdf_bytes(
        [
            _paragraph(rng, 55)
            + "\n"
            + _paragraph(rng, 55)
            + "\n"
            + _paragraph(rng, 55)
            + "\n"
            + _paragraph(rng, 55)
            for _ in range(pages)
        ],
        title="Benchmark PDF",
    )


def make_pptx(slides: int = 50) -> bytes:
    rng = random.Random(2)
    return kbfiles.pptx_bytes(
        [
            (f"Slide {i} {rng.choice(_WORDS)}", [_paragraph(rng, 14) for _ in range(5)], _paragraph(rng, 60))
            for i in range(1, slides + 1)
        ],
        title="Benchmark deck",
    )


def open_services(directory: Path, name: str) -> Services:
    """Services through the composition root: `local` is the real MiniLM when installed, else hashing."""
    if name == "local":
        try:
            services = build_services(load_settings(directory / "local", embedding={"provider": "local"}))
            services.embedder.embed_documents(["warm up"])
            return services
        except Exception as exc:  # model files not installed: say so, fall back
            print(f"local embedder unavailable ({exc}); using HashingEmbedder(384)")
    return build_services(load_settings(directory / "hashing"), embedder=HashingEmbedder(384))


def bench(services: Services, name: str, data: bytes, units: int, unit_name: str) -> dict[str, float]:
    """Stage timings of one full ingest through KnowledgeService.add_bytes (parse+split, embed, store)."""
    marks: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        marks.setdefault(f"{stage}:start", time.perf_counter())
        if done == total:
            marks[f"{stage}:end"] = time.perf_counter()

    t0 = time.perf_counter()
    info = services.knowledge.add_bytes(data, name, progress=progress)
    total = time.perf_counter() - t0
    # Parse and split separately, outside the ingest, to split the first stage.
    p0 = time.perf_counter()
    parsed = parse_document(data, name)
    p1 = time.perf_counter()
    Chunker().split(parsed)
    p2 = time.perf_counter()
    figures = {
        "parse+split": marks["parse:end"] - t0,
        "parse": p1 - p0,
        "split": p2 - p1,
        "embed": marks["embed:end"] - marks["embed:start"],
        "store": marks["store:end"] - marks["store:start"],
        "total": total,
    }
    share = figures["parse+split"] / total * 100
    print(
        f"{name}: {units} {unit_name}, {len(data) / 1e6:.2f} MB, {info.total_chunks} chunks | "
        f"total {total:.2f} s = {units / total:.1f} {unit_name}/s | "
        f"parse {figures['parse'] * 1000:.0f} ms + split {figures['split'] * 1000:.0f} ms "
        f"({share:.1f}% of total), embed {figures['embed'] * 1000:.0f} ms "
        f"({figures['embed'] / total * 100:.1f}%), store {figures['store'] * 1000:.0f} ms "
        f"({figures['store'] / total * 100:.1f}%)"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", choices=["local", "hashing"], default="local")
    args = parser.parse_args()
    pdf, pptx = make_pdf(), make_pptx()
    with tempfile.TemporaryDirectory() as tmp:
        services = open_services(Path(tmp), args.embedder)
        print(f"embedder: {services.embedder.model_id} ({services.embedder.dimensions}-d)")
        # Warm the parsers once (module imports, font tables) so figures are per-document costs.
        parse_document(kbfiles.pdf_bytes(["warm"]), "warm.pdf")
        parse_document(kbfiles.pptx_bytes([("warm", ["up"], None)]), "warm.pptx")
        try:
            bench(services, "bench-100-pages.pdf", pdf, 100, "pages")
            bench(services, "bench-50-slides.pptx", pptx, 50, "slides")
        finally:
            services.close()


if __name__ == "__main__":
    main()
