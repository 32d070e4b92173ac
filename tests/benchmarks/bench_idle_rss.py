"""Idle RSS of `strata serve` or of the desktop app on a built data dir, and what idle release costs.

A copy of `--data-dir` (built by bench_search.py / scale_corpus.py; never modified) is opened
by a real `strata serve` (or `strata ui` offscreen, which hosts the same REST server) process.
The benchmark waits until it answers, lets its start-up jobs settle for `--settle` seconds,
runs `--searches` searches over REST (timing the first), then leaves it idle for `--idle`
seconds while sampling its RSS. With the idle release on (`--release-after`, both settings
`resources.model_idle_seconds` and `resources.vector_copy_idle_seconds`), the model session
and the vector copy are dropped meanwhile;
the search that follows is timed (time to first search after a release) and RSS read again.

    python tests/benchmarks/bench_idle_rss.py --data-dir /tmp/x/synthetic-100000 [--mode ui]
        [--idle 150] [--release-after 60] [--settle 30] [--root /path/to/other/checkout]
    python tests/benchmarks/bench_idle_rss.py --data-dir DIR --in-process   # a breakdown, load-free CPU

Each step prints RSS split into anonymous memory and mapped files, PSS and USS (private pages),
from /proc/PID/smaps_rollup; the search after the idle period also prints the server's CPU
seconds and major page faults for it (library pages read back), which do not depend on load.
`--keep-pages` turns `resources.drop_library_pages` off for a before/after.

The server's child processes count too: REST search workers (`api.search_workers`) start when
searches overlap and stop after `api.search_worker_idle_seconds`, and multiprocessing's resource
tracker stays. Every step prints their number and RSS and the sum with the server's;
`--concurrent N` sends the first searches N at a time so the workers start (a busy server).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.security import load_or_create_token
from app.api.server import free_port
from tests.benchmarks import anon_regions
from tests.benchmarks.bench_rest import ROOT, children, rss_mb, wait_ready

QUERIES = ["dinner plans with the team", "flight to berlin", "deploy broke the build", "birthday gift"]


def search(url: str, token: str, query: str) -> float:
    started = time.perf_counter()
    response = httpx.get(
        f"{url}/api/search",
        params={"q": query, "limit": 10},
        headers={"Authorization": f"Bearer {token}"},
        timeout=600,
    )
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


def memory(pid: int | str = "self") -> str:
    """RSS split from smaps_rollup: anonymous vs file pages, PSS, USS (private pages)."""
    kb: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        kb[name] = int(value.split()[0])
    uss = kb["Private_Clean"] + kb["Private_Dirty"]
    parts = (kb["Rss"], kb["Anonymous"], kb["Rss"] - kb["Anonymous"], kb["Pss"], uss)
    mb = [v / 1024 for v in parts]
    return "RSS {:.0f} MB (anonymous {:.0f}, file {:.0f}), PSS {:.0f}, USS {:.0f}".format(*mb)


def family(pid: int) -> str:
    """The server's child processes (search workers, resource tracker): count, RSS, and the total."""
    sizes = []
    for child in children(pid):
        try:
            sizes.append(rss_mb(child))
        except OSError:
            continue
    own = rss_mb(pid)
    listed = " + ".join(f"{mb:.0f}" for mb in sizes) or "none"
    return f"children {len(sizes)} ({listed} MB); server + children {own + sum(sizes):.0f} MB"


def concurrent_searches(url: str, token: str, n: int) -> None:
    """`n` searches at once, so the server hands them to its search workers (which then start)."""

    async def one(client: httpx.AsyncClient, i: int) -> None:
        response = await client.get(
            "/api/search", params={"q": f"{QUERIES[i % len(QUERIES)]} {i}", "limit": 10}
        )
        response.raise_for_status()

    async def all_of_them() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=600) as client:
            for round_ in range(3):  # the first round starts the workers, the next ones use them
                await asyncio.gather(*(one(client, round_ * n + i) for i in range(n)))

    asyncio.run(all_of_them())


def cpu_and_faults(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) and major page faults of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks, int(fields[9])


def smaps_summary() -> str:
    """This process's RSS split into anonymous memory and mapped files (the three largest)."""
    anon = files = 0
    by_file: dict[str, int] = {}
    name = ""
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and ":" not in head[0]:
            name = head[5] if len(head) > 5 else ""
        elif line.startswith("Rss:"):
            kb = int(head[1])
            if "/" in name:
                files += kb
                short = name.rsplit("/", 1)[1][:24]
                by_file[short] = by_file.get(short, 0) + kb
            else:
                anon += kb
    top = sorted(by_file.items(), key=lambda item: -item[1])[:3]
    listed = ", ".join(f"{n} {kb / 1024:.0f}" for n, kb in top)
    return f"anonymous {anon / 1024:.0f} MB, mapped files {files / 1024:.0f} MB ({listed})"


def in_process(data_dir: Path, drop_pages: bool) -> None:
    """Services without a shell or jobs: RSS after each step, CPU of the searches (load-free)."""
    from app.bootstrap import build_services
    from app.core import memory_trim
    from app.core.settings import load_settings
    from app.services.idle_release import release_idle

    memory_trim.limit_arenas(2)  # as the scheduler host does
    services = build_services(load_settings(data_dir))

    def step(label: str) -> None:
        memory_trim.release()
        print(f"{label}: {memory()} after trim; {smaps_summary()}")

    def timed(query: str) -> str:
        cpu, wall = time.process_time(), time.perf_counter()
        services.memory.search(query)
        return f"{time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.2f} s wall"

    step("services built")
    print(f"first search: {timed(QUERIES[0])}")
    step("after the first search")
    print(f"a later search: {timed(QUERIES[1])}")
    print(f"LanceDB caches: {services.vectors.cache_bytes() / 1e6:.0f} MB")
    released = release_idle(services, 1, 1, now=time.monotonic() + 10, drop_pages=drop_pages)
    step(
        f"after the idle release (model {released.model}, copies {released.vector_bytes / 1e6:.0f} MB, "
        f"LanceDB caches {released.lance_bytes / 1e6:.0f} MB, code pages {released.pages_mb:.0f} MB)"
    )
    faults = cpu_and_faults(os.getpid())[1]
    print(f"first search after the release: {timed(QUERIES[2])}")
    print(f"  major page faults in it: {cpu_and_faults(os.getpid())[1] - faults}")
    step("after it")
    print(f"load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    services.close()


def children_mb(pid: int) -> float:
    total = 0.0
    for child in children(pid):
        try:
            total += rss_mb(child)
        except OSError:
            continue
    return total


def sample(pid: int, seconds: float, every: float = 5.0) -> list[tuple[float, float, float]]:
    """(seconds, server RSS, children's RSS) every `every` seconds."""
    out, started = [], time.monotonic()
    while time.monotonic() - started < seconds:
        out.append((time.monotonic() - started, rss_mb(pid), children_mb(pid)))
        time.sleep(every)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--mode", choices=("serve", "ui"), default="serve")
    parser.add_argument("--settle", type=float, default=30, help="seconds for start-up jobs")
    parser.add_argument("--searches", type=int, default=1)
    parser.add_argument("--concurrent", type=int, default=0, help="then 3 rounds of N searches at once")
    parser.add_argument("--idle", type=float, default=150)
    parser.add_argument(
        "--release-after",
        type=float,
        default=None,
        help="resources.model_idle_seconds and resources.vector_copy_idle_seconds",
    )
    parser.add_argument("--keep", action="store_true", help="reuse --data-dir in place (it is written to)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run (a before/after)")
    parser.add_argument("--in-process", action="store_true", help="no shell, no jobs: a breakdown")
    parser.add_argument(
        "--keep-pages", action="store_true", help="resources.drop_library_pages off (a before/after)"
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in a log file
    if not (args.data_dir / "strata.sqlite3").exists():
        print(f"no data dir at {args.data_dir}: build one with bench_search.py --build")
        return 2
    if args.in_process:
        # Reads only (no job runs, nothing is written but the lock).
        in_process(args.data_dir, not args.keep_pages)
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="strata-idle-"))
    data_dir = args.data_dir if args.keep else scratch / "data"
    if not args.keep:
        subprocess.run(["cp", "-a", str(args.data_dir), str(data_dir)], check=True)
    token = load_or_create_token(data_dir / "api-token")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "STRATA_LOG_LEVEL": "WARNING",
        "STRATA_API__PORT": str(port),
        "QT_QPA_PLATFORM": "offscreen",
    }
    if args.release_after is not None:
        env["STRATA_RESOURCES__MODEL_IDLE_SECONDS"] = str(args.release_after)
        env["STRATA_RESOURCES__VECTOR_COPY_IDLE_SECONDS"] = str(args.release_after)
    if args.keep_pages:
        env["STRATA_RESOURCES__DROP_LIBRARY_PAGES"] = "false"
    python = args.root / ".venv" / "bin" / "python"
    command = [str(python if python.exists() else sys.executable), "-m", "app.cli.main"]
    command += ["--data-dir", str(data_dir)]
    command += ["serve", "--port", str(port)] if args.mode == "serve" else ["ui"]
    server = subprocess.Popen(command, cwd=args.root, env=env)
    try:
        asyncio.run(wait_ready(url, timeout=600))
        load = os.getloadavg()[0]
        print(f"{args.root}: {args.mode} ready: {memory(server.pid)} (load {load:.1f})")
        settled = sample(server.pid, args.settle)
        print(f"after {args.settle:.0f} s of start-up jobs ({settled[-1][1]:.0f}): {memory(server.pid)}")
        first = search(url, token, QUERIES[0])
        for i in range(1, args.searches):
            search(url, token, QUERIES[i % len(QUERIES)])
        print(f"first search {first:.0f} ms; after {args.searches} search(es): {memory(server.pid)}")
        if args.concurrent:
            concurrent_searches(url, token, args.concurrent)
            print(f"after 3 × {args.concurrent} concurrent searches: {memory(server.pid)}")
        print(f"  {family(server.pid)}")
        curve = sample(server.pid, args.idle)
        for at, mb, kids in curve[:: max(1, len(curve) // 12)]:
            print(f"  idle +{at:5.0f} s  RSS {mb:6.0f} MB, children {kids:6.0f} MB")
        print(f"idle after {args.idle:.0f} s: {memory(server.pid)} (load {os.getloadavg()[0]:.1f})")
        print(f"  {family(server.pid)}")
        print(f"  {anon_regions.summary(server.pid, top=6)}")
        cpu, faults = cpu_and_faults(server.pid)
        again = search(url, token, QUERIES[-1])
        cpu_after, faults_after = cpu_and_faults(server.pid)
        print(
            f"search after the idle period {again:.0f} ms wall, server CPU {cpu_after - cpu:.2f} s, "
            f"{faults_after - faults} major page faults; {memory(server.pid)}"
        )
        cpu = cpu_after
        then = search(url, token, QUERIES[1] + " later")
        print(
            f"next search {then:.0f} ms wall, server CPU {cpu_and_faults(server.pid)[0] - cpu:.2f} s "
            f"(load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)",
            flush=True,
        )
        print(f"  {family(server.pid)}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
