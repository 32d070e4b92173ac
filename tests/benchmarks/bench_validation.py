"""Cost of the one ingest rule (`clean_message`) per message, against the old check it replaced.

The old check (sanitize the content, strip three fields) is rebuilt inline here, so the figure
is what the repair of every field, the metadata walk and the limits add per ingested message.

    python tests/benchmarks/bench_validation.py [--n 20000]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.sanitize import sanitize_text
from app.core.validation import clean_message
from tests.benchmarks.synthetic import messages


def old_check(message):  # the pre-issue-13 clean_message, minus its error branches
    return dataclasses.replace(
        message,
        platform=message.platform.strip().lower(),
        message_id=str(message.message_id).strip(),
        channel=(message.channel or "").strip(),
        person=(message.person or "").strip(),
        content=sanitize_text(message.content),
    )


def per_message_us(fn, batch) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for m in batch:
            fn(m)
        best = min(best, time.perf_counter() - started)
    return best / len(batch) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    args = parser.parse_args()
    plain = list(messages(args.n))
    rich = [
        dataclasses.replace(
            m,
            content=m.content + " \ud83d broken",
            metadata={"thread": {"id": str(i), "tags": ["a", "b"], "nested": {"x": 1}}, "n": i},
        )
        for i, m in enumerate(plain)
    ]
    limit = 10 * 1024 * 1024
    new_plain = per_message_us(lambda m: clean_message(m, max_bytes=limit), plain)
    old_plain = per_message_us(old_check, plain)
    new_rich = per_message_us(lambda m: clean_message(m, max_bytes=limit), rich)
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores shared)")
    print(f"plain messages: clean_message {new_plain:.1f} µs/msg, old check {old_plain:.1f} µs/msg")
    print(f"with a lone surrogate and nested metadata: {new_rich:.1f} µs/msg")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
