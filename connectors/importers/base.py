"""What every export importer shares: the Importer seam, the side-notes log and error helpers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from app.core.domain import RawMessage
from app.core.errors import InvalidInput

# A preview keeps a handful of messages; the full stream is never held in memory.
SAMPLE_SIZE = 5


class ImportLog:
    """Notes a parser gathers while streaming: entries skipped (by reason) and warnings.

    A plain accumulator rather than a frozen value because it fills up during iteration;
    `ImportPreview` (a frozen value) is what callers see in the end.
    """

    def __init__(self) -> None:
        self.skipped: Counter[str] = Counter()
        self.warnings: list[str] = []
        self.details: dict[str, str] = {}

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def note(self, key: str, value: str) -> None:
        """A fact about the whole file worth showing in the preview (detected layout, team id)."""
        self.details[key] = value


class Importer(Protocol):
    """Turns one export file (or folder) the user already has into RawMessage values.

    `messages` streams: it must not hold the whole export in memory, and it raises
    `InvalidInput` naming the file and line/entry at the first malformed item. Running it
    twice over the same file yields the same message ids (re-import is a no-op).
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
