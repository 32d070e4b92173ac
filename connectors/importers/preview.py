"""The dry-run summary of an export: counts per channel and person, date range, a sample."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from app.core.clock import iso
from app.core.domain import IngestError, RawMessage
from connectors.importers.base import SAMPLE_SIZE, ImportLog


@dataclass(frozen=True, slots=True)
class ImportPreview:
    """What an import would bring in; built by one full streaming pass, so it also validates."""

    format: str
    source: str
    messages: int
    channels: tuple[tuple[str, int], ...]
    persons: tuple[tuple[str, int], ...]
    first_timestamp: int | None
    last_timestamp: int | None
    sample: tuple[RawMessage, ...]
    skipped: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    details: tuple[tuple[str, str], ...] = ()
    # Entries of a recognized file that could not be parsed (file, line, reason); they are skipped.
    rejected: tuple[IngestError, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "source": self.source,
            "messages": self.messages,
            "channels": dict(self.channels),
            "persons": dict(self.persons),
            "first": iso(self.first_timestamp),
            "last": iso(self.last_timestamp),
            "sample": [
                {
                    "message_id": m.message_id,
                    "channel": m.channel,
                    "person": m.person,
                    "timestamp": iso(m.timestamp),
                    "content": m.content[:200],
                }
                for m in self.sample
            ],
            "skipped": dict(self.skipped),
            "warnings": list(self.warnings),
            "details": dict(self.details),
            "errors": [e.to_dict() for e in self.rejected],
        }


class PreviewBuilder:
    """Accumulates counts while messages stream past; memory grows with distinct names only."""

    def __init__(self, format_name: str, source: str) -> None:
        self._format = format_name
        self._source = source
        self._channels: Counter[str] = Counter()
        self._persons: Counter[str] = Counter()
        self._count = 0
        self._first: int | None = None
        self._last: int | None = None
        self._sample: list[RawMessage] = []

    def add(self, message: RawMessage) -> None:
        self._count += 1
        self._channels[message.channel] += 1
        self._persons[message.person] += 1
        ts = message.timestamp
        self._first = ts if self._first is None else min(self._first, ts)
        self._last = ts if self._last is None else max(self._last, ts)
        if len(self._sample) < SAMPLE_SIZE:
            self._sample.append(message)

    def build(self, log: ImportLog) -> ImportPreview:
        return ImportPreview(
            format=self._format,
            source=self._source,
            messages=self._count,
            channels=tuple(self._channels.most_common()),
            persons=tuple(self._persons.most_common()),
            first_timestamp=self._first,
            last_timestamp=self._last,
            sample=tuple(self._sample),
            skipped=tuple(sorted(log.skipped.items())),
            warnings=tuple(log.warnings),
            details=tuple(log.details.items()),
            rejected=tuple(log.rejected),
        )


def counted(
    messages: Iterator[RawMessage], builder: PreviewBuilder, on_message: Callable[[int], None] | None = None
) -> Iterator[RawMessage]:
    """Pass messages through while feeding the preview (and an optional progress callback)."""
    for message in messages:
        builder.add(message)
        if on_message is not None:
            on_message(1)
        yield message
