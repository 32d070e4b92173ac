"""Are stopped search workers reaped? `strata serve` under bursts of concurrent searches, workers
stopped when idle, one SIGKILLed every third cycle; after each cycle, `serve`'s children.

    python tests/benchmarks/bench_worker_reaping.py DATA_DIR [--minutes 8] [--port 3491]
        [--root DIR]

DATA_DIR: any data dir (e.g. the demo: `strata --data-dir DIR` without a display loads it).
`--root` runs the server from another source tree (e.g. `git archive main` unpacked) with this
virtualenv, to compare. Workers stop after 3 s idle (`STRATA_API__SEARCH_WORKER_IDLE_SECONDS`).
A child in state Z (zero memory, `<defunct>`) is a worker nobody waited for.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--port", type=int, default=3491)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    env = dict(os.environ, STRATA_API__SEARCH_WORKER_IDLE_SECONDS="3", PYTHONPATH=str(args.root))
    cli = [sys.executable, "-c", "from app.cli.main import run; run()", "--data-dir", str(args.data_dir)]
    server = subprocess.Popen(
        [*cli, "serve", "--port", str(args.port)], cwd=args.root, env=env, stdout=subprocess.DEVNULL
    )
    token = subprocess.run([*cli, "token"], cwd=args.root, env=env, capture_output=True, text=True).stdout
    url = f"http://127.0.0.1:{args.port}/api/search"
    headers = {"Authorization": f"Bearer {token.strip()}"}
    try:
        _serve(server, url, headers, args.minutes)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)


def _serve(server: subprocess.Popen[bytes], url: str, headers: dict[str, str], minutes: float) -> None:
    for _ in range(300):
        try:
            if httpx.get(url, params={"q": "x"}, headers=headers, timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)

    def children() -> list[list[str]]:
        out = subprocess.run(
            ["ps", "--ppid", str(server.pid), "-o", "pid=,stat=,rss=,args="], capture_output=True, text=True
        ).stdout
        return [line.split(None, 3) for line in out.strip().splitlines()]

    def burst(n: int = 12) -> None:
        def one(i: int) -> None:
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(url, params={"q": f"launch date {i}"}, headers=headers, timeout=60)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    end, cycle, zombies, killed = time.time() + minutes * 60, 0, 0, 0
    while time.time() < end:
        cycle += 1
        workers: list[list[str]] = []
        for _ in range(20):
            burst()
            workers = [c for c in children() if "resource_tracker" not in c[3] and "spawn_main" in c[3]]
            if workers:
                break
        if cycle % 3 == 0 and workers:
            os.kill(int(workers[0][0]), signal.SIGKILL)
            killed += 1
            burst(2)
        time.sleep(12)  # idle 3 s, the reaper's 5 s, the exit
        kids = children()
        zombies += sum(c[1].startswith("Z") for c in kids)
        listed = "; ".join(f"{c[0]} {c[1]} {c[2]} KB" for c in kids)
        print(f"cycle {cycle}: {len(workers)} worker(s) started; children after idle: {listed}", flush=True)
    print(
        f"{cycle} cycles, {killed} workers SIGKILLed, zombie sightings {zombies} "
        f"(load {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
