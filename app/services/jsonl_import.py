"""JSONL files (one message per line, as `strata import jsonl` and `strata export` write them)
through the same preview-then-store steps as the chat-export importers, for the import wizard."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from app.core.domain import IngestError, IngestResult, RawMessage
from app.core.jsonl import parse_jsonl
from connectors.importers.base import ImportLog
from connectors.importers.preview import ImportPreview, PreviewBuilder

FORMAT = "jsonl"
Progress = Callable[[str, int, int | None], None]  # (phase, done, total)


def is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".ndjson")


def _messages(path: Path, user_id: str, log: ImportLog) -> Iterator[RawMessage]:
    with path.open("rb") as handle:
        for item in parse_jsonl(handle, default_user=user_id):
            if isinstance(item, IngestError):
                log.rejected.append(IngestError(f"{path.name}, line {item.line}: {item.reason}", item.line))
            else:
                yield item


def preview_jsonl(path: Path, user_id: str, *, progress: Progress | None = None) -> ImportPreview:
    """Read every line without storing; unreadable lines are listed (and will be skipped)."""
    log, builder = ImportLog(), PreviewBuilder(FORMAT, path.name)
    for n, message in enumerate(_messages(path, user_id, log), start=1):
        builder.add(message)
        if progress is not None and n % 1000 == 0:
            progress("scan", n, None)
    preview = builder.build(log)
    if progress is not None:
        progress("scan", preview.messages, preview.messages)
    return preview


def store_jsonl(
    memory: object, preview: ImportPreview, path: Path, user_id: str, *, progress: Progress | None = None
) -> IngestResult:
    """Store the previewed file; idempotent, so a stopped import finishes by running it again."""
    log = ImportLog()

    def report(done: int, total: int | None) -> None:
        if progress is not None:
            progress("store", done, total)

    result = memory.ingest(  # type: ignore[attr-defined]
        _messages(path, user_id, log), progress=report, total=preview.messages, actor="import:jsonl"
    )
    return result.merged(IngestResult(errors=tuple(log.rejected)))
