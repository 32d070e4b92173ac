"""CPU of reading candidates' rows and turns on the index path (`StoredWindows._read`): this tree
against an earlier one, interleaved in one process on the same candidate sets.

    python tests/benchmarks/bench_window_reads.py --data-dir DIR [--before REV] [--sets 80] [--size 65]

DIR is a data dir (e.g. a copy of `locomo-bulk-1000000`); it is only read. `--before` names a git
revision whose `app/core/search/stored_windows.py` is loaded as the other arm (default: `main`).
Each set is `--size` random message ids (a search reads ~65 candidates at a time: the keyword
candidates, then the vector candidates in two halves), new to both arms' connections ("cold":
what a search pays; their pages are in the OS cache, not in the connection's), then read again
("warm"). Prints CPU p50 / mean per read and how many sets gave identical rows and turns.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from app.core.search.hit_rows import HIT_FIELDS  # noqa: E402
from app.core.search.stored_windows import StoredWindows  # noqa: E402

MODULE = "app/core/search/stored_windows.py"


def earlier(revision: str) -> type:
    """`StoredWindows` as `revision` had it."""
    show = ["git", "show", f"{revision}:{MODULE}"]
    source = subprocess.run(show, cwd=ROOT, capture_output=True, check=True)
    path = Path(tempfile.mkdtemp()) / "stored_windows_before.py"
    path.write_bytes(source.stdout)
    spec = importlib.util.spec_from_file_location("stored_windows_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StoredWindows


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--before", default="main")
    parser.add_argument("--sets", type=int, default=80)
    parser.add_argument("--size", type=int, default=65)
    args = parser.parse_args()
    url = f"sqlite:///file:{args.data_dir / 'strata.sqlite3'}?mode=ro&uri=true"
    arms = {"before": earlier(args.before), "now": StoredWindows}
    sessions = {name: Session(create_engine(url)) for name in arms}
    ids = [str(i) for (i,) in sessions["now"].connection().exec_driver_sql("SELECT id FROM raw_messages")]
    rng = random.Random(0)
    cpu: dict[tuple[str, str], list[float]] = {}
    same = 0
    load = os.getloadavg()[0]
    print(f"{len(ids):,} messages; {args.sets} sets of {args.size} ids; load {load:.1f}", flush=True)
    for n in range(args.sets):
        keys = rng.sample(ids, args.size)
        read: dict[str, tuple[object, object]] = {}
        for name in arms if n % 2 else list(arms)[::-1]:
            for state in ("cold", "warm"):
                store = arms[name](HIT_FIELDS, lambda keys: {})
                started = time.process_time()
                store._read(sessions[name], keys)
                cpu.setdefault((name, state), []).append((time.process_time() - started) * 1000)
            rows = {k: tuple(r)[: len(HIT_FIELDS)] for k, r in store.rows.items()}
            read[name] = (store._turns, rows)
        same += read["before"] == read["now"]
    for (name, state), values in sorted(cpu.items()):
        p50, mean = statistics.median(values), statistics.mean(values)
        print(f"{name:>6} {state}: CPU p50 {p50:.2f} ms, mean {mean:.2f} ms")
    print(f"identical rows and turns: {same} of {args.sets}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
