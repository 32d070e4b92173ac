"""The two places a record goes: stderr (never stdout: `strata mcp` speaks its protocol there)
and a rotating file in the data dir. Neither reports a failure with the record's arguments."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TextIO

# Bounded: at most (1 + LOG_FILE_BACKUPS) * LOG_FILE_BYTES on disk, small enough to attach.
LOG_FILE_BYTES = 5 * 1024 * 1024
LOG_FILE_BACKUPS = 3


def _report_failure(record: logging.LogRecord) -> None:
    """The standard handleError prints the record's message template and arguments to stderr,
    unmasked: a secret passed as an argument would leak through a formatting mistake."""
    exc = sys.exc_info()[1]
    where = f"{record.pathname}:{record.lineno}"
    what = type(exc).__name__ if exc is not None else "error"
    with contextlib.suppress(OSError, ValueError):  # stderr closed: nowhere left to say it
        sys.stderr.write(f"strata: a log record from {where} could not be written ({what})\n")


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is at the time of the record (test runners and the
    desktop app swap it), like logging's last-resort handler."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # the base class assigns it; stderr is read live
        pass

    def handleError(self, record: logging.LogRecord) -> None:
        _report_failure(record)


class LogFileHandler(RotatingFileHandler):
    """`<data dir>/logs/strata.log`, created on the first record with owner-only permissions.

    Several processes (the app or `serve`, a CLI command, `strata mcp`, search workers) append to
    the same file; each rotates it when its own write finds it full. If the file cannot be
    written (a read-only data dir), one line says so on stderr and the file is given up.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(
            path, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8", delay=True
        )
        self.failed = False

    def _open(self) -> io.TextIOWrapper:
        path = Path(self.baseFilename)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # The log names channels, files and people: private to the user, like the data dir.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def doRollover(self) -> None:
        try:
            super().doRollover()
        except OSError:
            # Windows will not rename a file another process holds open: keep appending to the
            # current one; the next full write tries again.
            if self.stream is None:
                self.stream = self._open()

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            self.failed = True
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(
                    f"strata: cannot write the log file {self.baseFilename} ({exc}); logging to stderr only\n"
                )
            return
        _report_failure(record)
