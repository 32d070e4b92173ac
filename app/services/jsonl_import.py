"""JSONL files (one message per line, as `strata import jsonl` and `strata export` write them)
as an importer, so the import wizard stores them through `ImportService` like every export."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from app.core.domain import IngestError, RawMessage
from app.core.jsonl import parse_jsonl
from connectors.importers.base import ImportLog

FORMAT = "jsonl"


def is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".ndjson")


class JsonlImporter:
    """Lines in the JSONL field format; an unreadable line is reported (file, line) and skipped."""

    format = FORMAT

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id  # lines without a user_id belong to the configured user

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        with path.open("rb") as handle:
            for item in parse_jsonl(handle, default_user=self.user_id):
                if isinstance(item, IngestError):
                    log.reject_located(f"{path.name}, line {item.line}: {item.reason}", item.line)
                else:
                    yield item
