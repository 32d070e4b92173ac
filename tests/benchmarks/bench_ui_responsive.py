"""Window responsiveness while a large import runs: event-loop stalls and search latency.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_ui_responsive.py [--messages 50000]
An import of N messages runs as a background MutateOp while a 10 ms timer measures how late the
GUI thread answers, and a query is "typed" every 400 ms through the Search screen.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer

from app.bootstrap import build_services
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.ui.app import build_window, ensure_qapp
from app.ui.events import MESSAGES
from app.ui.ops import MutateOp, wait_for_pool

WORDS = "budget launch deploy review lunch travel design bug login roadmap hiring offsite".split()  # noqa: SIM905


def messages(n: int, now: int):
    for i in range(n):
        yield RawMessage(
            "slack", f"r{i}", f"c{i % 20}", f"p{i % 50}", now - (n - i) * 1000,
            f"{WORDS[i % 12]} update {i} about {WORDS[(i * 7) % 12]}",
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    args = parser.parse_args()
    app = ensure_qapp()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", embedding=EmbeddingSettings(provider="hashing"))
        services = build_services(settings, embedder=HashingEmbedder())
        window = build_window(services)
        window.show()
        search = window.show_screen("search")
        gaps: list[float] = []
        latencies: list[float] = []
        state = {"last": time.perf_counter(), "done": False, "typed_at": 0.0, "n": 0, "imported": 0}

        def tick() -> None:
            now = time.perf_counter()
            gaps.append((now - state["last"]) * 1000 - 10)
            state["last"] = now

        def type_query() -> None:
            state["n"] += 1
            state["typed_at"] = time.perf_counter()
            search.focus_query(f"{WORDS[state['n'] % 12]} update")
            search.debounce.stop()
            search.run_search()

        original = search._show_hits

        def timed(seq, text, hits):
            original(seq, text, hits)
            if seq == search._seq:
                latencies.append((time.perf_counter() - state["typed_at"]) * 1000)

        search._show_hits = timed
        timer, typer = QTimer(), QTimer()
        timer.timeout.connect(tick)
        typer.timeout.connect(type_query)
        timer.start(10)
        typer.start(400)
        started = time.perf_counter()

        def done(result) -> None:
            state["imported"] = result.imported
            state["done"] = time.perf_counter() - started
            app.quit()

        def failed(exc: BaseException) -> None:
            print("import failed:", type(exc).__name__, exc, getattr(exc, "__traceback_text__", ""))
            app.quit()

        batch = messages(args.messages, services.clock.now_ms())
        op = MutateOp(
            parent=window, op=lambda: services.memory.ingest(batch), changes=[MESSAGES],
            events=window.ctx.events, success=done,
        )  # fmt: skip
        op.failure(failed).run_in_background()
        app.exec()
        timer.stop()
        typer.stop()
        wait_for_pool()  # searches still in flight must finish before the temp dir goes
        gaps.sort()
        p99 = gaps[int(len(gaps) * 0.99) - 1] if gaps else 0.0
        print(f"import: {state['imported']} messages in {state['done']:.1f}s (background op)")
        print(
            f"event loop lateness: median {statistics.median(gaps):.1f} ms, p99 {p99:.1f} ms, "
            f"max {gaps[-1]:.1f} ms over {len(gaps)} ticks"
        )
        if latencies:
            print(
                f"search while importing: {len(latencies)} queries, "
                f"median {statistics.median(latencies):.0f} ms, "
                f"max {max(latencies):.0f} ms (typed → results shown)"
            )
        services.close()


if __name__ == "__main__":
    main()
