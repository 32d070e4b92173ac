"""Cold start of the desktop app, as a user sees it and inside the process.

Run: .venv/bin/python tests/benchmarks/bench_ui_start.py [--runs 5] [--messages 2000] [--mode both]
     .venv/bin/python tests/benchmarks/bench_ui_start.py --mode inprocess --data-dir COPY_OF_1M \
         --query "hiking trip" --runs 3    # an existing archive; the query is typed while it loads

`process` (what a user sees): exec of the real `strata --data-dir D ui` console script → the
window's first paint (Qt's own log, no app code) → the window interactive (the first turn of the
event loop after show(), reported by the app under STRATA_UI_TRACE) → the services attached.
`inprocess`: the same steps timed from inside one Python process that builds the window itself
(no CLI), which is what the figure before this benchmark measured.

Offscreen Qt platform on a seeded temp data dir, in-app API server off; the embedder is the
configured default (the ONNX model) unless --hashing. `--strata PATH` starts another build (e.g.
the PyInstaller bundle); `--paint-only` stops each run at the first paint, for builds that predate
the trace. Prints the figures recorded in docs/benchmarks/ui.md.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("lancedb", "onnxruntime", "openai", "mcp", "fastapi", "sqlalchemy", "pyarrow")
PAINT_RE = re.compile(r"^\s*([0-9.]+) qt\.widgets\.painting Flushing top level")
TRACE_RE = re.compile(r"^strata-ui-trace (\w+) ([0-9.]+)(?: (.*))?$")

CHILD = r"""
import os, sys, time
T0 = float(sys.argv[1])
QUERY = os.environ.get("STRATA_BENCH_QUERY", "")
from PySide6.QtCore import QTimer
from app.ui.app import AppHost, build_window, ensure_qapp
from app.ui.ops import QueryOp
app = ensure_qapp()
t_import = time.monotonic() - T0
window = build_window(None)
host = AppHost(window)
window.show()
marks = {}
late = []
ticker = QTimer()
ticker.setInterval(10)
def tick():
    now = time.monotonic()
    if "last" in marks:
        late.append(max(0.0, now - marks["last"] - 0.010))
    marks["last"] = now
ticker.timeout.connect(tick)
def typed(_text):
    marks.setdefault("input", time.monotonic() - T0)  # a key event reached the query box
def interactive():
    marks["window"] = time.monotonic() - T0
    marks["heavy"] = [m for m in HEAVY if m in sys.modules]
    ticker.start()  # how late the GUI thread answers while the services load on a worker
    if QUERY:  # the user types while the data dir opens; the search runs once it is open
        from PySide6.QtTest import QTest
        box = window.loading.query_edit
        box.textEdited.connect(typed)
        box.setFocus()
        QTest.keyClicks(box, QUERY)
def answered():
    screen = window.screens.get("search")
    if screen is not None and screen.count_label.text():
        marks["answer"] = time.monotonic() - T0
        finish()
    else:
        QTimer.singleShot(5, answered)
def open_services():
    from app.bootstrap import build_services
    from app.core.settings import load_settings
    return build_services(load_settings(), repair=False)
def opened(svc):
    began = time.monotonic()
    host.opened(svc)
    marks["services"] = time.monotonic() - T0
    marks["attach_ms"] = (time.monotonic() - began) * 1000
    if QUERY:
        answered()
    else:
        finish()
def finish():
    ticker.stop()
    attach_ms = marks["attach_ms"]
    heavy = ",".join(marks["heavy"]) or "none"
    late.sort()
    p50, p99, worst = (late[len(late) // 2], late[int(len(late) * 0.99)], late[-1]) if late else (0, 0, 0)
    print(
        f"{t_import:.3f} {marks['window']:.3f} {marks['services']:.3f} {heavy} "
        f"{p50 * 1000:.1f} {p99 * 1000:.1f} {worst * 1000:.1f} {attach_ms:.0f} "
        f"{marks.get('input', -1):.3f} {marks.get('answer', -1):.3f}",
        flush=True,
    )
    host.shutdown()
    app.quit()
QTimer.singleShot(0, interactive)  # first turn of the event loop after show(): the window answers input
def failed(exc):
    print("ERR", exc, flush=True)
    app.quit()
QueryOp(parent=window, op=open_services, success=opened).failure(failed).run_in_background()
app.exec()
""".replace("HEAVY", repr(HEAVY))


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


def strata_command(given: str | None = None) -> list[str]:
    """The console script a user runs (beside this interpreter), else `python -m app`."""
    script = Path(given) if given else Path(sys.executable).with_name("strata")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "app"]


def run_process(
    command: list[str], env: dict[str, str], data_dir: Path, timeout: float, *, paint_only: bool = False
) -> dict[str, object]:
    """One cold start of `strata ui`; returns seconds from exec to paint/window/services."""
    env = {
        **env,
        "STRATA_UI_TRACE": "1",
        "QT_LOGGING_RULES": "qt.widgets.painting=true",
        "QT_MESSAGE_PATTERN": "%{time boot} %{category} %{message}",  # CLOCK_MONOTONIC, as below
    }
    marks: dict[str, object] = {}
    done = threading.Event()
    started = time.monotonic()
    proc = subprocess.Popen(
        [*command, "--data-dir", str(data_dir), "ui"],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            paint = PAINT_RE.match(line)
            if paint and "paint" not in marks:
                marks["paint"] = float(paint.group(1)) - started
                if paint_only:
                    done.set()
            trace = TRACE_RE.match(line.strip())
            if trace:
                event, stamp, extra = trace.groups()
                marks[event] = float(stamp) - started
                if event == "window":
                    marks["heavy"] = extra or "none"
                if event in ("services", "failed"):
                    done.set()
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    done.wait(timeout)
    proc.terminate()  # the app has no exit-after-start switch; its data dir is a throwaway
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    reader.join(5)
    return marks


def run_inprocess(env: dict[str, str], timeout: float = 180.0) -> tuple[Any, ...]:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, repr(t0)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    line = [x for x in out.stdout.splitlines() if x.strip()]
    if out.returncode != 0 or not line or line[-1].startswith("ERR"):
        raise SystemExit(f"child failed: {out.stdout}\n{out.stderr}")
    imp, win, svc, heavy, p50, p99, worst, attach, typed, answer = line[-1].split(" ")
    return (
        float(imp),
        float(win),
        float(svc),
        float(p50),
        float(p99),
        float(worst),
        float(attach),
        heavy,
        float(typed),
        float(answer),
    )


def summary(name: str, values: list[float]) -> None:
    if values:
        print(
            f"{name}: median {statistics.median(values):.2f}s, min {min(values):.2f}s, "
            f"max {max(values):.2f}s over {len(values)} runs"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--mode", choices=("both", "process", "inprocess"), default="both")
    parser.add_argument("--hashing", action="store_true", help="use the hashing embedder, not ONNX")
    parser.add_argument("--timeout", type=float, default=180.0, help="per run")
    parser.add_argument("--strata", help="the strata executable to start (default: this venv's; a bundle)")
    parser.add_argument(
        "--paint-only",
        action="store_true",
        help="stop at the first paint (builds without the trace)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="start on this existing data dir (e.g. a copy of the 1M archive) instead of seeding one",
    )
    parser.add_argument("--query", default="", help="typed into the window while it loads; times the answer")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir.resolve() if args.data_dir else Path(tmp) / "data"
        env = {
            **os.environ,
            "STRATA_DATA_DIR": str(data_dir),
            "STRATA_API__ENABLED_IN_APP": "false",
            "XDG_CONFIG_HOME": str(Path(tmp) / "config"),  # QSettings: not the developer's own
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "STRATA_BENCH_QUERY": args.query,
        }
        if args.hashing:
            env["STRATA_EMBEDDING__PROVIDER"] = "hashing"
        for key in ("STRATA_DATA_DIR", "STRATA_EMBEDDING__PROVIDER"):
            if key in env:
                os.environ[key] = env[key]
        if args.data_dir is None:
            seed(data_dir, args.messages)
        print(f"data dir {data_dir}; load average {os.getloadavg()[0]:.1f}", flush=True)
        if args.mode in ("both", "process"):
            rows: list[dict[str, object]] = []
            command = strata_command(args.strata)
            print(f"whole process: {' '.join(command)} --data-dir {data_dir} ui")
            for _ in range(args.runs):
                marks = run_process(command, env, data_dir, args.timeout, paint_only=args.paint_only)
                rows.append(marks)
                shown = {k: (f"{v:.2f}s" if isinstance(v, float) else v) for k, v in marks.items()}
                print(f"run: {shown}")
            for key, name in (
                ("paint", "exec → first paint"),
                ("window", "exec → window interactive"),
                ("services", "exec → services attached"),
            ):
                summary(name, [float(r[key]) for r in rows if isinstance(r.get(key), float)])  # type: ignore[arg-type]
        if args.mode in ("both", "inprocess"):
            inner = []
            for _ in range(args.runs):
                inner.append(run_inprocess(env, args.timeout))
                imp, win, svc, p50, p99, worst, attach, heavy, typed, answer = inner[-1]
                searched = (
                    f"; typed query handled {typed:.2f}s, first search answered {answer:.2f}s"
                    if args.query
                    else ""
                )
                print(
                    f"in-process run: Qt+UI imported {imp:.2f}s, window interactive {win:.2f}s, "
                    f"services attached {svc:.2f}s, heavy modules at first input: {heavy}; "
                    f"event-loop lateness until {'answered' if args.query else 'attached'} "
                    f"p50/p99/max {p50}/{p99}/{worst} ms; "
                    f"attaching the screens blocked the GUI thread {attach:.0f} ms{searched}",
                    flush=True,
                )
            for i, name in enumerate(("in-process imports", "in-process window", "in-process services")):
                summary(name, [r[i] for r in inner])  # type: ignore[misc]
            if args.query:
                summary("in-process typed query handled", [r[8] for r in inner])
                summary("in-process first search answered", [r[9] for r in inner])
            for i, name in ((5, "worst event-loop stall while loading"), (6, "screens attach (GUI thread)")):
                values = [float(r[i]) for r in inner]
                print(f"{name}: median {statistics.median(values):.0f} ms, max {max(values):.0f} ms")


if __name__ == "__main__":
    main()
