"""What a log record may carry: secrets and personal data masked, oversized records cut.

A formatter rather than a `logging.Filter`: a filter sees the record before its traceback is
rendered, and the exception text (an SQL error quoting row values, a client error quoting a URL
with a token in it) is where secrets hide. The formatter masks the finished text, so nothing a
handler writes has skipped the check.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.privacy.detector import Detector

# Classes masked in logs. Phone numbers are left out: ports, pids, sizes and timings in log
# lines look like numbers to dial, and a false match makes a bug report unreadable.
LOG_REDACT_CLASSES = ("secrets", "cards", "ibans", "emails")
# A record (message plus traceback) longer than this keeps its head and its tail. A session-11
# SQL error rendered ~80,000 lines; 20,000 characters still hold every frame of a deep traceback.
MAX_RECORD_CHARS = 20_000
TAIL_CHARS = 4_000
MASKED_ATTRIBUTE = "strata_masked_text"
LINE_FORMAT = "%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s"


def cut(text: str, limit: int = MAX_RECORD_CHARS, tail: int = TAIL_CHARS) -> str:
    """`text` within about `limit` characters: head and tail kept, a note of how much was cut.

    The cut moves to whitespace, so no half of a token survives next to it (half an API key is
    too short for the detector to recognize, but still half a key).
    """
    if len(text) <= limit:
        return text
    head_end = _last_space(text, limit - tail)
    tail_start = _next_space(text, len(text) - tail)
    if tail_start <= head_end:  # one token spans the middle: drop it whole
        tail_start = head_end
    dropped = tail_start - head_end
    note = f"\n[... {dropped:,} characters cut from this log record ...]\n"
    return text[:head_end] + note + text[tail_start:]


def _last_space(text: str, end: int) -> int:
    match = re.search(r"\s\S*$", text[:end])
    return match.start() + 1 if match else 0


def _next_space(text: str, start: int) -> int:
    match = re.compile(r"\s").search(text, start)
    return match.start() if match else len(text)


class RedactingFormatter(logging.Formatter):
    """Plain lines (local time with its UTC offset, level, pid, logger, message); full-width
    tracebacks; the message and its traceback cut to a bound, then masked."""

    def __init__(self) -> None:
        super().__init__(LINE_FORMAT)
        self._detector: Detector | None = None

    def format(self, record: logging.LogRecord) -> str:
        # The message with its traceback and stack, cut then masked; the line's prefix (time,
        # level, pid, logger name) comes from our own code, and masking it would cost ~4x the CPU
        # of a short record (docs/benchmarks.md, "logs").
        masked = getattr(record, MASKED_ATTRIBUTE, None)
        if masked is None:  # stderr and the file share one record: render and mask it once
            text = record.getMessage()
            if record.exc_info:
                text += "\n" + self.formatException(record.exc_info)
            elif record.exc_text:
                text += "\n" + record.exc_text
            if record.stack_info:
                text += "\n" + self.formatStack(record.stack_info)
            masked = self.mask(cut(text))
            setattr(record, MASKED_ATTRIBUTE, masked)
        record.message = masked
        record.asctime = self.formatTime(record)
        return self.formatMessage(record)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="milliseconds")

    def mask(self, text: str) -> str:
        if self._detector is None:
            # Imported on the first record: the patterns cost ~0.1 s to load, and most CLI
            # commands never log a line.
            from app.core.privacy.detector import Detector

            self._detector = Detector(LOG_REDACT_CLASSES, cache_size=0)
        return self._detector.mask(text)
