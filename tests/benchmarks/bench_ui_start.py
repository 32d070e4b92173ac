"""Cold start of the desktop app: process spawn → interactive window, and → services attached.

Run: .venv/bin/python tests/benchmarks/bench_ui_start.py [--runs 5] [--messages 2000]
Uses the offscreen Qt platform and the hashing embedder on a seeded temp data dir; prints
the figures recorded in docs/benchmarks/ui.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys, time
T0 = float(sys.argv[1])
from PySide6.QtCore import QTimer
from app.ui.app import AppHost, build_window, ensure_qapp
from app.ui.ops import QueryOp
app = ensure_qapp()
t_import = time.time() - T0
window = build_window(None)
host = AppHost(window)
window.show()
marks = {}
def interactive():
    marks["window"] = time.time() - T0
    # Heavy libraries already loaded when the window first answers input (goal: none).
    marks["heavy"] = [m for m in ("lancedb", "openai", "mcp", "fastapi") if m in sys.modules]
def open_services():
    from app.bootstrap import build_services
    from app.core.settings import load_settings
    return build_services(load_settings(), repair=False)
def opened(svc):
    host.opened(svc)
    marks["services"] = time.time() - T0
    heavy = ",".join(marks["heavy"]) or "none"
    print(f"{t_import:.3f} {marks['window']:.3f} {marks['services']:.3f} {heavy}", flush=True)
    host.shutdown()
    app.quit()
QTimer.singleShot(0, interactive)  # first turn of the event loop after show(): the window answers input
def failed(exc):
    print("ERR", exc, flush=True)
    app.quit()
QueryOp(parent=window, op=open_services, success=opened).failure(failed).run_in_background()
app.exec()
"""


def seed(data_dir: Path, count: int) -> None:
    from app.bootstrap import build_services
    from app.core.domain import RawMessage
    from app.core.settings import load_settings

    svc = build_services(load_settings(data_dir), repair=False)
    now = int(time.time() * 1000)
    words = ["budget", "launch", "deploy", "review", "lunch", "travel", "design", "bug", "login", "roadmap"]
    svc.memory.ingest(
        RawMessage("slack", f"b{i}", f"c{i % 7}", f"p{i % 13}", now - i * 60_000, f"{words[i % 10]} note {i}")
        for i in range(count)
    )
    svc.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "STRATA_DATA_DIR": str(Path(tmp) / "data"),
            "STRATA_EMBEDDING__PROVIDER": "hashing",
            "STRATA_API__ENABLED_IN_APP": "false",
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        }
        os.environ.update({k: env[k] for k in ("STRATA_DATA_DIR", "STRATA_EMBEDDING__PROVIDER")})
        seed(Path(env["STRATA_DATA_DIR"]), args.messages)
        rows = []
        for _ in range(args.runs):
            t0 = time.time()
            out = subprocess.run(
                [sys.executable, "-c", CHILD, repr(t0)],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            line = [x for x in out.stdout.splitlines() if x.strip()]
            if out.returncode != 0 or not line or line[-1].startswith("ERR"):
                raise SystemExit(f"child failed: {out.stdout}\n{out.stderr}")
            imp, win, svc, heavy = [*line[-1].split(" "), ""][:4]
            rows.append((float(imp), float(win), float(svc), heavy))
            print(
                f"run: Qt+UI imported {imp}s, window interactive {win}s, "
                f"services attached {svc}s, heavy modules at first input: {heavy}"
            )
        for i, name in enumerate(("imports", "window interactive", "services attached")):
            values = [r[i] for r in rows]
            print(
                f"{name}: median {statistics.median(values):.2f}s, "
                f"max {max(values):.2f}s over {len(values)} runs"
            )


if __name__ == "__main__":
    main()
