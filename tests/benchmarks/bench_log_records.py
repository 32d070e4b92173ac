"""What Strata's log formatter costs: CPU per record against the standard formatter, same process.

Run: .venv/bin/python tests/benchmarks/bench_log_records.py
Three records: a typical INFO line, a warning with a traceback, and the session-11 case (an SQL
error whose message is a ~80,000-line statement). Each goes through a file handler with the
standard `logging.Formatter` (what a bare basicConfig writes) and with `RedactingFormatter`
(cut to a bound, then masked). Prints CPU microseconds per record, the ratio and bytes written.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.core.logs.handlers import LogFileHandler  # noqa: E402
from app.core.logs.redaction import LINE_FORMAT, MASKED_ATTRIBUTE, RedactingFormatter  # noqa: E402


def _records() -> dict[str, tuple[logging.LogRecord, int]]:
    log = logging.getLogger("app.services.index_service")
    info = log.makeRecord(log.name, logging.INFO, __file__, 1, "vector index of %s: %s in %.1f s",
                          ("messages", "optimized", 2.4), None)  # fmt: skip

    def nested(depth: int) -> None:
        if depth == 0:
            raise ConnectionError("slack sync failed: invalid_auth for token xoxb-1234567890-0987654321-AbCd")
        nested(depth - 1)

    try:
        nested(12)
    except ConnectionError:
        warning = log.makeRecord(log.name, logging.WARNING, __file__, 2, "sync failed", (), sys.exc_info())
    statement = "INSERT INTO raw_messages VALUES " + ",\n".join(f"(?, ?, {i})" for i in range(80_000))
    try:
        raise RuntimeError(f"(sqlite3.OperationalError) too many SQL variables\n[SQL: {statement}]")
    except RuntimeError:
        sql = log.makeRecord(log.name, logging.ERROR, __file__, 3, "insert failed", (), sys.exc_info())
    return {
        "INFO line": (info, 20_000),
        "warning + traceback": (warning, 2_000),
        "80k-line SQL error": (sql, 20),
    }


def _cpu_per_record(
    record: logging.LogRecord, formatter: logging.Formatter, path: Path, n: int
) -> tuple[float, int]:
    handler = LogFileHandler(path)
    handler.maxBytes = 0  # no rotation: the bytes written are the figure
    handler.setFormatter(formatter)
    handler.handle(record)  # first use: opens the file (and loads the patterns, for ours)
    started = time.process_time()
    for _ in range(n):
        # Both formatters cache the rendered text on the record (ours for its second handler):
        # each round renders afresh, as a new record would.
        record.exc_text = None
        record.__dict__.pop(MASKED_ATTRIBUTE, None)
        handler.handle(record)
    cpu = (time.process_time() - started) / n
    handler.close()
    size = path.stat().st_size // (n + 1)
    path.unlink()
    return cpu * 1e6, size


def main() -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(f"{'record':<22} {'standard µs':>12} {'ours µs':>10} {'ratio':>6} {'standard B':>11} {'ours B':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "strata.log"
        for name, (record, n) in _records().items():
            plain_cpu, plain_size = _cpu_per_record(record, logging.Formatter(LINE_FORMAT), path, n)
            ours_cpu, ours_size = _cpu_per_record(record, RedactingFormatter(), path, n)
            print(f"{name:<22} {plain_cpu:>12.1f} {ours_cpu:>10.1f} {ours_cpu / plain_cpu:>6.1f}"
                  f" {plain_size:>11,} {ours_size:>8,}")  # fmt: skip


if __name__ == "__main__":
    main()
