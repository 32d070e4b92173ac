"""Knowledge-base ingestion of large files: peak RSS and CPU per format, before and after streaming.

Generates (in a temporary folder, never committed) a ~2,000-page PDF, a ~50 MB DOCX (~60 MB of
document.xml plus media), a 2,000-slide PPTX, a 100,000-row XLSX and a ~25 MB CSV, then adds each
one in a fresh worker process through `KnowledgeService.add_file` (deterministic hashing embedder:
the model is not the subject) and reports the worker's peak RSS over its start-up RSS, its CPU
time and the outcome, in two modes:

- `refuse`: default limits (2M characters, 4,000 chunks). Every file is over them; the figure is
  what finding that out costs.
- `add`: limits raised (100M characters, 200k chunks) so the whole file is parsed, chunked,
  embedded and stored.

`--repo DIR` runs the workers on another checkout (with its own .venv), e.g. main before this
change, so before/after come from the same generated files:

    .venv/bin/python tests/benchmarks/bench_kb_stream.py                     # this tree
    .venv/bin/python tests/benchmarks/bench_kb_stream.py --repo /work/main   # a checkout before
    .venv/bin/python tests/benchmarks/bench_kb_stream.py --formats docx,pdf --mode refuse

CPU seconds and RSS hardly depend on the machine's load; wall seconds do (the load is printed).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import re
import subprocess
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ("pdf", "docx", "pptx", "xlsx", "csv")
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
]
MB = 1024 * 1024


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


# -- generators ---------------------------------------------------------------------------------
def make_pdf(path: Path, pages: int) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    rng = random.Random(1)
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for _ in range(pages):
        text = pdf.beginText(40, 800)
        text.setFont("Helvetica", 10)
        for _ in range(40):  # ~2,800 characters a page: dense prose
            text.textLine(words(rng, 11))
        pdf.drawText(text)
        pdf.showPage()
    pdf.save()


def make_docx(path: Path, xml_mb: int, media_mb: int) -> None:
    """A Word package written by hand (python-docx would take minutes): styled runs like Word's."""
    import docx

    rng = random.Random(2)
    template = io.BytesIO()
    document = docx.Document()
    document.add_heading("Benchmark", level=1)
    document.add_paragraph("x")
    document.save(template)
    run = (
        '<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr>'
        '<w:t xml:space="preserve">{}</w:t></w:r>'
    )
    body: list[str] = []
    size = 0
    number = 0
    while size < xml_mb * MB:
        if number % 40 == 0:
            block = (
                f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>{run.format(f"Part {number // 40}")}</w:p>'
            )
        else:
            block = "<w:p>" + "".join(run.format(words(rng, 12) + " ") for _ in range(4)) + "</w:p>"
        body.append(block)
        size += len(block)
        number += 1
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    xml = f"{head}<w:document {ns}><w:body>{''.join(body)}<w:sectPr/></w:body></w:document>"
    with zipfile.ZipFile(template) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename == "word/document.xml":
                dst.writestr(info.filename, xml)
            else:
                dst.writestr(info, src.read(info))
        # Pictures are most of a real large document's bytes; random bytes do not compress.
        dst.writestr("word/media/image1.bin", random.Random(3).randbytes(media_mb * MB), zipfile.ZIP_STORED)


def make_pptx(path: Path, slides: int) -> None:
    """python-pptx writes one slide with notes; its parts are copied with new text for the rest."""
    from pptx import Presentation

    rng = random.Random(4)
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "TITLE_MARK"
    slide.placeholders[1].text_frame.text = "BODY_MARK"
    slide.notes_slide.notes_text_frame.text = "NOTES_MARK"
    template = io.BytesIO()
    deck.save(template)
    with zipfile.ZipFile(template) as src:
        parts = {info.filename: src.read(info) for info in src.infolist()}
    slide_xml = parts.pop("ppt/slides/slide1.xml").decode()
    slide_rels = parts.pop("ppt/slides/_rels/slide1.xml.rels").decode()
    notes_xml = parts.pop("ppt/notesSlides/notesSlide1.xml").decode()
    notes_rels = parts.pop("ppt/notesSlides/_rels/notesSlide1.xml.rels").decode()
    types = parts.pop("[Content_Types].xml").decode()
    presentation = parts.pop("ppt/presentation.xml").decode()
    pres_rels = parts.pop("ppt/_rels/presentation.xml.rels").decode()
    slide_type = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"
    notes_type = "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"
    rel_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide"
    overrides, ids, rels = [], [], []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for number in range(1, slides + 1):
            body = '</a:t></a:r></a:p><a:p><a:r><a:rPr lang="en-US" dirty="0"/><a:t>'.join(
                words(rng, 14) for _ in range(8)
            )
            dst.writestr(
                f"ppt/slides/slide{number}.xml",
                slide_xml.replace("TITLE_MARK", f"Slide {number}").replace("BODY_MARK", body),
            )
            dst.writestr(
                f"ppt/slides/_rels/slide{number}.xml.rels",
                slide_rels.replace("notesSlide1.xml", f"notesSlide{number}.xml"),
            )
            dst.writestr(
                f"ppt/notesSlides/notesSlide{number}.xml", notes_xml.replace("NOTES_MARK", words(rng, 60))
            )
            dst.writestr(
                f"ppt/notesSlides/_rels/notesSlide{number}.xml.rels",
                notes_rels.replace("slide1.xml", f"slide{number}.xml"),
            )
            overrides.append(
                f'<Override PartName="/ppt/slides/slide{number}.xml" ContentType="{slide_type}"/>'
            )
            overrides.append(
                f'<Override PartName="/ppt/notesSlides/notesSlide{number}.xml" ContentType="{notes_type}"/>'
            )
            ids.append(f'<p:sldId id="{1000 + number}" r:id="rIdS{number}"/>')
            rels.append(
                f'<Relationship Id="rIdS{number}" Type="{rel_ns}" Target="slides/slide{number}.xml"/>'
            )
        types = re.sub(
            r'<Override PartName="/ppt/(slides/slide1|notesSlides/notesSlide1)\.xml"[^>]*/>', "", types
        )
        dst.writestr("[Content_Types].xml", types.replace("</Types>", "".join(overrides) + "</Types>"))
        start = presentation.index("<p:sldIdLst>")
        end = presentation.index("</p:sldIdLst>") + len("</p:sldIdLst>")
        dst.writestr(
            "ppt/presentation.xml",
            presentation[:start] + "<p:sldIdLst>" + "".join(ids) + "</p:sldIdLst>" + presentation[end:],
        )
        kept = [r for r in pres_rels.split("<Relationship ") if "slides/slide1.xml" not in r]
        dst.writestr(
            "ppt/_rels/presentation.xml.rels",
            "<Relationship ".join(kept).replace("</Relationships>", "".join(rels) + "</Relationships>"),
        )
        for name, data in parts.items():
            dst.writestr(name, data)


def make_xlsx(path: Path, rows: int) -> None:
    import openpyxl

    rng = random.Random(5)
    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Ledger")
    sheet.append(["Date", "Owner", "Item", "Amount", "Notes", "Status"])
    for number in range(rows):
        sheet.append(
            [f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}", rng.choice(_WORDS), words(rng, 3),
             rng.randint(1, 100_000) / 100, words(rng, 8), rng.choice(("open", "done"))]
        )  # fmt: skip
    workbook.save(path)


def make_csv(path: Path, target_mb: int) -> None:
    rng = random.Random(6)
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "owner", "subject", "amount", "notes"])
        number = 0
        while out.tell() < target_mb * MB:
            writer.writerow([number, rng.choice(_WORDS), words(rng, 4), rng.randint(1, 9999), words(rng, 10)])
            number += 1


def generate(folder: Path, scale: float, formats: list[str]) -> dict[str, Path]:
    makers = {
        "pdf": lambda p: make_pdf(p, int(2000 * scale)),
        "docx": lambda p: make_docx(p, int(60 * scale), int(30 * scale)),
        "pptx": lambda p: make_pptx(p, int(2000 * scale)),
        "xlsx": lambda p: make_xlsx(p, int(100_000 * scale)),
        "csv": lambda p: make_csv(p, int(25 * scale)),
    }
    files: dict[str, Path] = {}
    for fmt in formats:
        path = folder / f"bench-large.{fmt}"
        started = time.perf_counter()
        makers[fmt](path)
        took = time.perf_counter() - started
        print(f"generated {path.name}: {path.stat().st_size / MB:.1f} MB in {took:.0f} s")
        files[fmt] = path
    return files


# -- worker (runs in the checkout under test) ---------------------------------------------------
def worker(path: Path, mode: str, data_dir: Path) -> dict[str, object]:
    import resource

    from app.bootstrap import build_services
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.errors import StrataError
    from app.core.settings import load_settings

    kb: dict[str, int] = {}
    if mode == "add":
        kb = {"max_extracted_chars": 100_000_000, "max_chunks": 200_000}
    services = build_services(load_settings(data_dir, kb=kb), embedder=HashingEmbedder(384))
    # Warm the parsers' imports so the figure is the document's cost, not the libraries'.
    import lxml.etree  # noqa: F401
    import openpyxl  # noqa: F401
    import pypdf  # noqa: F401

    start_rss = _rss_mb()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    outcome: str
    chunks = 0
    try:
        info = services.knowledge.add_file(path)
        outcome, chunks = "stored", info.total_chunks
    except StrataError as exc:
        outcome = f"refused: {exc.message}"
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    services.close()
    return {"start_mb": round(start_rss), "peak_mb": round(peak), "cpu_s": round(cpu, 1),
            "wall_s": round(wall, 1), "chunks": chunks, "outcome": outcome}  # fmt: skip


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run_worker(repo: Path, path: Path, mode: str) -> dict[str, object]:
    python = repo / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "PYTHONPATH": str(repo)}
        done = subprocess.run(
            [str(python), __file__, "--worker", str(path), "--mode", mode, "--data-dir", data_dir],
            cwd=repo, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        return {"outcome": f"worker failed: {done.stderr.strip().splitlines()[-1:]}"}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=ROOT, help="checkout whose code the workers run")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--mode", choices=["refuse", "add", "both"], default="both")
    parser.add_argument("--scale", type=float, default=1.0, help="size factor of the generated files")
    parser.add_argument("--files", type=Path, help="reuse (or keep) generated files in this folder")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.mode, args.data_dir)))
        return
    formats = [f for f in args.formats.split(",") if f]
    modes = ["refuse", "add"] if args.mode == "both" else [args.mode]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.files or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        missing = [f for f in formats if not (folder / f"bench-large.{f}").exists()]
        files = {f: folder / f"bench-large.{f}" for f in formats}
        files.update(generate(folder, args.scale, missing))
        print(f"code: {args.repo} @ {_commit(args.repo)}")
        for mode in modes:
            for fmt in formats:
                load = os.getloadavg()[0]
                result = run_worker(args.repo, files[fmt], mode)
                size = files[fmt].stat().st_size / MB
                print(f"{mode:6} {fmt:4} {size:6.1f} MB  load {load:4.1f}  " + json.dumps(result))


def _commit(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    main()
