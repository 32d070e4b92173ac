"""`strata serve`'s RSS through one deletion and its vector erasure: before, during, and after.

A deletion on a host answers at once and erases the message's vector from LanceDB's files on a
worker right after (`vector_erasure.py`): at 1M messages that compaction rewrites the whole
messages table. This benchmark measures whether that peak stays in the server's memory:

    cp -a /tmp/q12/s/locomo-100000 /tmp/NAME/s100k      # never the prepared copy itself
    python tests/benchmarks/bench_delete_rss.py --data-dir /tmp/NAME/s100k [--deletions 2]
        [--settle 120] [--before 150] [--after 300] [--release-after 60] [--csv curve.csv]
        [--root OTHER_CHECKOUT] [--keep]

The data dir is copied to a scratch directory (`--keep`: used in place, it is written to).
Jobs named by `--pause` (default `index-repair`: on a bulk-built archive it embeds sentence keys
for hours, so the server would never be idle) are paused in the copy, as the app's Settings do.
A real `serve` starts with the idle release after `--release-after` seconds; a few searches run;
the server idles `--before` seconds (its RSS the "before"); then each deletion goes through
`DELETE /api/messages/{id}`, and the RSS (anonymous and file pages), the server's CPU and the
erasures still recorded in SQLite (read-only) are sampled every second until the erasure is
done, then every 2 s for `--after` seconds. Printed per deletion: before, the peak during the
erasure, at its end, 60 s and `--after` s after it, the lowest of the last minute, and where the
server's anonymous memory sits at the end. CPU seconds and memory do not depend on the load;
wall seconds do (the load average is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.security import load_or_create_token
from app.api.server import free_port
from tests.benchmarks import anon_regions
from tests.benchmarks.bench_idle_rss import QUERIES, memory, search
from tests.benchmarks.bench_rest import ROOT, tree_cpu_seconds, wait_ready, workers_rss_mb


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float  # since the deletion was sent
    rss_mb: float
    anonymous_mb: float
    children_mb: float
    cpu_s: float  # server and children, since the deletion was sent
    pending: int  # erasures still recorded
    load: float


def rollup(pid: int) -> tuple[float, float]:
    """RSS and anonymous MB from /proc/PID/smaps_rollup."""
    kb = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        kb[name] = int(value.split()[0])
    return kb["Rss"] / 1024, kb["Anonymous"] / 1024


def pending(database: Path) -> int:
    """Tables whose erasure is recorded and not done (read-only; -1 if SQLite is busy)."""
    try:
        con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=2)
        try:
            return int(con.execute("SELECT count(*) FROM vector_erasures").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return -1


def pick(database: Path, count: int) -> list[int]:
    """Message ids spread over the archive (the middle of each slice)."""
    con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        low, high = con.execute("SELECT min(id), max(id) FROM raw_messages").fetchone()
        out = []
        for k in range(count):
            at = low + (high - low) * (k + 1) // (count + 1)
            row = con.execute("SELECT min(id) FROM raw_messages WHERE id >= ?", (at,)).fetchone()
            out.append(int(row[0]))
        return out
    finally:
        con.close()


def curve(pid: int, database: Path, seconds: float, every: float, since: float, cpu0: float) -> list[Sample]:
    out = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        rss, anon = rollup(pid)
        out.append(
            Sample(
                time.monotonic() - since,
                rss,
                anon,
                sum(workers_rss_mb(pid)),
                tree_cpu_seconds(pid) - cpu0,
                pending(database),
                os.getloadavg()[0],
            )
        )
        time.sleep(every)
    return out


def until_erased(pid: int, database: Path, since: float, cpu0: float, timeout: float) -> list[Sample]:
    """Samples every second until no erasure is recorded (at least 3 s: the worker starts first)."""
    out: list[Sample] = []
    while time.monotonic() - since < timeout:
        out += curve(pid, database, 1.0, 1.0, since, cpu0)
        if out[-1].pending == 0 and out[-1].seconds >= 3:
            break
    return out


def nearest(samples: list[Sample], seconds: float) -> Sample:
    return min(samples, key=lambda s: abs(s.seconds - seconds))


def fmt(s: Sample) -> str:
    return f"RSS {s.rss_mb:,.0f} MB (anonymous {s.anonymous_mb:,.0f}), children {s.children_mb:,.0f} MB"


def one(url: str, token: str, pid: int, database: Path, message_id: int, after: float) -> list[Sample]:
    rss, anon = rollup(pid)
    print(f"before the deletion of {message_id}: RSS {rss:,.0f} MB (anonymous {anon:,.0f})")
    cpu0 = tree_cpu_seconds(pid)
    since = time.monotonic()
    response = httpx.delete(
        f"{url}/api/messages/{message_id}", headers={"Authorization": f"Bearer {token}"}, timeout=600
    )
    response.raise_for_status()
    answered = time.monotonic() - since
    during = until_erased(pid, database, since, cpu0, timeout=1800)
    done = during[-1]
    tail = curve(pid, database, after, 2.0, since, cpu0)
    samples = during + tail
    peak = max(samples, key=lambda s: s.rss_mb)
    last_minute = [s for s in tail if s.seconds >= done.seconds + after - 60] or tail[-1:]
    low = min(last_minute, key=lambda s: s.rss_mb)
    print(
        f"  answered in {answered * 1000:.0f} ms; erasure done at +{done.seconds:.0f} s "
        f"(server CPU {done.cpu_s:.1f} s, load {done.load:.1f})"
    )
    print(f"  peak at +{peak.seconds:.0f} s: {fmt(peak)}")
    print(f"  at the end of the erasure: {fmt(done)}")
    for later in sorted({60, 120, after}):
        if later <= after:
            s = nearest(tail, done.seconds + later)
            print(f"  +{later:.0f} s after it: {fmt(s)}; CPU since the deletion {s.cpu_s:.1f} s")
    print(f"  lowest in the last minute: {fmt(low)} (load {tail[-1].load:.1f})")
    step = max(1, len(samples) // 24)
    for s in samples[::step]:
        print(
            f"    +{s.seconds:5.0f} s  RSS {s.rss_mb:6,.0f}  anonymous {s.anonymous_mb:6,.0f}  "
            f"children {s.children_mb:5,.0f}  CPU {s.cpu_s:5.1f}  pending {s.pending}"
        )
    return samples


def in_process(data_dir: Path, count: int) -> None:
    """One erasure in this process (no shell, no jobs): RSS, Arrow's pool and where anonymous
    memory sits, before and after it and after the trim a host runs every minute. Writes."""
    import pyarrow as pa

    from app.bootstrap import build_services
    from app.core import memory_trim

    services = build_services(data_dir=data_dir)
    me = os.getpid()

    def step(label: str) -> None:
        rss, anon = rollup(me)
        arrow = pa.total_allocated_bytes() / 1e6
        print(f"{label}: RSS {rss:,.0f} MB (anonymous {anon:,.0f}), Arrow {arrow:.0f} MB")

    try:
        step("services built")
        for target in pick(data_dir / "strata.sqlite3", count):
            cpu = time.process_time()
            services.memory.deletion.delete([target])
            step(f"deleted and erased {target} ({time.process_time() - cpu:.1f} s CPU)")
            released = memory_trim.release()
            step(f"after the trim ({released.freed_mb:.0f} MB returned)")
            print(f"  {anon_regions.summary(me, top=4)}")
        print(f"peak RSS {resource_peak_mb():,.0f} MB; load {os.getloadavg()[0]:.1f}")
    finally:
        services.close()


def resource_peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--deletions", type=int, default=1)
    parser.add_argument("--settle", type=float, default=120, help="seconds for start-up jobs")
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--before", type=float, default=150, help="idle seconds before the deletion")
    parser.add_argument("--after", type=float, default=300, help="seconds sampled after each erasure")
    parser.add_argument("--release-after", type=float, default=60, help="the idle release's two settings")
    parser.add_argument("--pause", default="index-repair", help="job ids to pause, comma-separated")
    parser.add_argument("--keep", action="store_true", help="use --data-dir in place (it is written to)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run (a before/after)")
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--log", type=Path, default=None, help="the server's output")
    parser.add_argument("--in-process", action="store_true", help="no server: erase here (writes the dir)")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in a log file
    if not (args.data_dir / "strata.sqlite3").exists():
        print(f"no data dir at {args.data_dir}")
        return 2
    if args.in_process:
        in_process(args.data_dir, args.deletions)
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="strata-delete-rss-", dir=args.data_dir.parent))
    data_dir = args.data_dir if args.keep else scratch / "data"
    if not args.keep:
        subprocess.run(["cp", "-a", str(args.data_dir), str(data_dir)], check=True)
    paused = [p for p in args.pause.split(",") if p]
    if paused:
        (data_dir / "ui-paused-jobs.json").write_text(json.dumps({"paused": paused}), encoding="utf-8")
    database = data_dir / "strata.sqlite3"
    targets = pick(database, args.deletions)
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "STRATA_LOG_LEVEL": "INFO",
        "STRATA_API__PORT": str(port),
        "STRATA_RESOURCES__MODEL_IDLE_SECONDS": str(args.release_after),
        "STRATA_RESOURCES__VECTOR_COPY_IDLE_SECONDS": str(args.release_after),
    }
    python = args.root / ".venv" / "bin" / "python"
    command = [str(python if python.exists() else sys.executable), "-m", "app.cli.main"]
    command += ["--data-dir", str(data_dir), "serve", "--port", str(port)]
    log_path = args.log or scratch / "server.log"
    log = log_path.open("w", encoding="utf-8")
    server = subprocess.Popen(command, cwd=args.root, env=env, stdout=log, stderr=subprocess.STDOUT)
    rows: list[tuple[int, Sample]] = []
    try:
        asyncio.run(wait_ready(url, timeout=900))
        print(f"{args.root}: serve ready: {memory(server.pid)} (load {os.getloadavg()[0]:.1f})")
        time.sleep(args.settle)
        for i in range(args.searches):
            search(url, token, QUERIES[i % len(QUERIES)])
        print(f"after {args.searches} searches: {memory(server.pid)}")
        time.sleep(args.before)
        print(f"idle {args.before:.0f} s: {memory(server.pid)} (load {os.getloadavg()[0]:.1f})")
        print(f"  {anon_regions.summary(server.pid, top=4)}")
        for n, target in enumerate(targets):
            rows += [(n, s) for s in one(url, token, server.pid, database, target, args.after)]
            print(f"  {anon_regions.summary(server.pid, top=4)}")
        again = search(url, token, QUERIES[-1])
        print(f"a search after it all: {again:.0f} ms; {memory(server.pid)}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        if args.csv:
            with args.csv.open("w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow(["deletion", *Sample.__dataclass_fields__])
                for n, s in rows:
                    values = (s.seconds, s.rss_mb, s.anonymous_mb, s.children_mb, s.cpu_s)
                    writer.writerow([n, *(round(v, 2) for v in values), s.pending, s.load])
        if args.log is None:
            shutil.copy(log_path, Path(tempfile.gettempdir()) / "strata-delete-rss-server.log")
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"server log: {args.log or Path(tempfile.gettempdir()) / 'strata-delete-rss-server.log'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
