"""WhatsApp parse speed: a generated 100k-line chat in a 24-hour and a 12-hour (`a. m.`) clock.

Run: `.venv/bin/python tests/benchmarks/bench_whatsapp_parse.py [--lines 100000]`. Parses only
(both passes of the importer, no storage) and prints lines/s per clock, with the load average.
The header parser gained locale markers and invisible marks in issue 20; this checks what that
costs. Figures are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from connectors.importers.base import ImportLog
from connectors.importers.whatsapp import WhatsAppImporter


def write_chat(path: Path, lines: int, twelve_hour: bool) -> None:
    start = datetime(2022, 1, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as out:
        for n in range(lines):
            at = start + timedelta(minutes=7 * n)
            if twelve_hour:
                hour = at.hour % 12  # written as 0-11, the way the locales in the issue write midnight
                marker = "a.\u00a0m." if at.hour < 12 else "p.\u00a0m."
                clock = f"{hour:02d}:{at.minute:02d} {marker}"
            else:
                clock = f"{at.hour:02d}:{at.minute:02d}"
            out.write(
                f"{at.day}/{at.month}/{at.year}, {clock} - Person {n % 7}: message number {n} about lunch\n"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for label, twelve in (("24-hour", False), ("12-hour a. m./p. m.", True)):
            path = Path(tmp) / "chat.txt"
            write_chat(path, args.lines, twelve)
            started = time.perf_counter()
            count = sum(1 for _ in WhatsAppImporter(tz=UTC).messages(path, ImportLog()))
            seconds = time.perf_counter() - started
            print(
                f"{label}: {count} messages in {seconds:.2f} s = {count / seconds:,.0f} lines/s "
                f"(load average {os.getloadavg()[0]:.1f})"
            )


if __name__ == "__main__":
    main()
