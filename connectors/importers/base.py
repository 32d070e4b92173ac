"""What every export importer shares: the Importer seam, the side-notes log and error helpers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from app.core.domain import IngestError, RawMessage
from app.core.errors import InvalidInput

# A preview keeps a handful of messages; the full stream is never held in memory.
SAMPLE_SIZE = 5
# Skipped entries are all counted, but only this many are kept with their reasons: a file whose
# every line is damaged must not grow the report without bound.
MAX_REPORTED = 1000
UNREADABLE = "unreadable entry"


class ImportLog:
    """Notes a parser gathers while streaming: entries skipped (by reason) and warnings.

    A plain accumulator rather than a frozen value because it fills up during iteration;
    `ImportPreview` (a frozen value) is what callers see in the end.
    """

    def __init__(self) -> None:
        self.skipped: Counter[str] = Counter()
        self.warnings: list[str] = []
        self.details: dict[str, str] = {}
        self.rejected: list[IngestError] = []

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    def reject(self, source: str, line: int | None, reason: str, *, entry: str | None = None) -> None:
        """An entry of a recognized file that could not be parsed: counted, reported, skipped.

        The reason names the file, the line and the entry, the same way `malformed` does, so a
        skipped entry and a refused file read alike.
        """
        where = f"line {line}" if line is not None else None
        if entry:
            where = f"{where} ({entry})" if where else entry
        location = f"{source}, {where}" if where else source
        self.reject_located(f"{location}: {reason}", line)

    def reject_located(self, reason: str, line: int | None = None) -> None:
        """Like `reject`, for a reason that already names its file and place (a caught InvalidInput)."""
        self.skipped[UNREADABLE] += 1
        if len(self.rejected) < MAX_REPORTED:
            self.rejected.append(IngestError(reason=reason, line=line))

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def note(self, key: str, value: str) -> None:
        """A fact about the whole file worth showing in the preview (detected layout, team id)."""
        self.details[key] = value


class Importer(Protocol):
    """Turns one export file (or folder) the user already has into RawMessage values.

    `messages` streams: it must not hold the whole export in memory. Once the file's layout is
    recognized, an entry that cannot be parsed is reported with `log.reject` (file, line,
    reason) and skipped; only a file whose layout is not recognized (or whose structure breaks,
    such as a JSON syntax error) raises `InvalidInput`. Running it twice over the same file
    yields the same message ids (re-import is a no-op).
    """

    format: str

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]: ...


def malformed(source: str, where: str | None, what: str, *, hint: str | None = None) -> InvalidInput:
    """An InvalidInput that names the file and the line or entry, with a what-to-do hint."""
    location = f"{source}, {where}" if where else source
    return InvalidInput(
        f"{location}: {what}",
        hint=hint or "nothing was imported; fix or re-export the file and try again",
    )


def require_exists(path: Path) -> None:
    if not path.exists():
        raise InvalidInput(f"{path}: no such file or folder", hint="check the path and try again")


def nonempty(*parts: str | None) -> str:
    """Join the non-blank parts with newlines (message text, then media descriptions)."""
    return "\n".join(p.strip() for p in parts if p and p.strip())


def describe(exc: Exception) -> str:
    """A parser exception as a short phrase for an error message."""
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    return f"{type(exc).__name__}: {exc}"
