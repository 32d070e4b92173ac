"""Import use case: detect or choose an export format, preview it, then store it through the processor.

Guarantee ("nothing half-imported"): every import first streams the whole file through its
parser (the preview pass). A file whose layout is not recognized raises `InvalidInput` naming
the file and line/entry before a single message is stored; in a recognized file, entries that
cannot be parsed are reported (file, line, reason) in the preview and in the result's errors,
and skipped. The file is then streamed a second time into the processor, which stores it in
batches; the ids are deterministic, so a run cut
short (crash, power loss) is finished by running the same import again, and re-importing an
unchanged file stores nothing (every message counts as a duplicate).

Imports store first and embed later: `store` returns once every message is stored and
keyword-searchable, and the embedding backlog (`app/core/index/backlog.py`) makes the vectors in
the background, overlapping the storing; the CLI waits for it with a progress line.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.domain import IngestResult, RawMessage
from app.core.errors import InvalidInput
from app.services.jsonl_import import FORMAT as JSONL
from app.services.jsonl_import import JsonlImporter
from app.services.memory_service import MemoryService
from app.services.twins import TwinFilter
from connectors.importers.base import Importer, ImportLog
from connectors.importers.preview import ImportPreview, PreviewBuilder, counted
from connectors.importers.registry import FORMATS, detect_format, make_importer

# phase ("scan" while validating, "store" while importing), messages done, total if known
ImportProgress = Callable[[str, int, int | None], None]


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """Per-import knobs; `tz` and `date_order` matter only for exports that carry local times."""

    tz: str | None = None
    date_order: str | None = None
    chat_name: str | None = None

    def zone(self) -> tzinfo | None:
        if not self.tz:
            return None
        try:
            return ZoneInfo(self.tz)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise InvalidInput(
                f"unknown time zone {self.tz!r}", hint="use an IANA name such as Europe/Berlin or UTC"
            ) from exc


@dataclass(frozen=True, slots=True)
class ImportReport:
    """The preview, and (unless dry run) what storing changed, with the time each phase took."""

    format: str
    dry_run: bool
    preview: ImportPreview
    result: IngestResult | None
    parse_seconds: float
    store_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": self.format,
            "dry_run": self.dry_run,
            "preview": self.preview.to_dict(),
        }
        if self.result is not None:
            data.update(self.result.to_dict())
        data["seconds"] = {"parse": round(self.parse_seconds, 3), "store": round(self.store_seconds, 3)}
        return data


class ImportService:
    """`strata import <format>`, `POST /api/import` and the UI's import wizard all call this."""

    formats = FORMATS

    def __init__(self, memory: MemoryService, *, user_id: str) -> None:
        self._memory = memory
        self._user_id = user_id

    def detect(self, path: Path) -> str:
        return detect_format(path)

    def preview(
        self,
        format_name: str | None,
        path: Path,
        options: ImportOptions | None = None,
        *,
        progress: ImportProgress | None = None,
        source: str | None = None,
    ) -> ImportPreview:
        """Parse the whole file without storing anything; skipped entries are listed in `rejected`."""
        fmt = format_name or detect_format(path)
        importer = self._importer(fmt, options)
        log = ImportLog()
        builder = PreviewBuilder(fmt, source or path.name)
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None and done % 1000 == 0:
                progress("scan", done, None)

        for _ in counted(importer.messages(path, log), builder, tick):
            pass
        if progress is not None:
            progress("scan", done, done)
        return builder.build(log)

    def run(
        self,
        format_name: str | None,
        path: Path,
        options: ImportOptions | None = None,
        *,
        dry_run: bool = False,
        progress: ImportProgress | None = None,
        source: str | None = None,
    ) -> ImportReport:
        """Validate (preview pass), then unless `dry_run` stream the file into memory."""
        fmt = format_name or detect_format(path)
        started = time.perf_counter()
        preview = self.preview(fmt, path, options, progress=progress, source=source)
        parsed = time.perf_counter()
        if dry_run:
            return ImportReport(fmt, True, preview, None, parsed - started)
        result = self.store(preview, path, options, progress=progress)
        return ImportReport(fmt, False, preview, result, parsed - started, time.perf_counter() - parsed)

    def store(
        self,
        preview: ImportPreview,
        path: Path,
        options: ImportOptions | None = None,
        *,
        progress: ImportProgress | None = None,
    ) -> IngestResult:
        """Stream a file that `preview` has validated into memory (second pass; idempotent)."""
        importer = self._importer(preview.format, options)

        def store_progress(done: int, total: int | None) -> None:
            if progress is not None:
                progress("store", done, total)

        log = ImportLog()
        twins = TwinFilter(self._memory.db, self._user_id)
        result = self._memory.ingest(
            twins.drop_known(self._owned(importer.messages(path, log))),
            progress=store_progress,
            total=preview.messages,
            actor=f"import:{preview.format}",
            defer_embedding=True,
        )
        # Entries the parser skipped are part of the outcome, reported like rejected messages;
        # messages a live sync already stored under its own ids count as duplicates.
        return result.merged(IngestResult(duplicates=twins.dropped, errors=tuple(log.rejected)))

    def _owned(self, messages: Iterator[RawMessage]) -> Iterator[RawMessage]:
        """Importers yield messages for the default user; stamp the configured one."""
        for message in messages:
            yield (
                message
                if message.user_id == self._user_id
                else dataclasses.replace(message, user_id=self._user_id)
            )

    def _importer(self, format_name: str, options: ImportOptions | None) -> Importer:
        """The importer of a chat-export format, or of Strata's own JSONL (the import wizard's)."""
        if format_name == JSONL:
            return JsonlImporter(self._user_id)
        opts = options or ImportOptions()
        return make_importer(
            format_name, tz=opts.zone(), date_order=opts.date_order, chat_name=opts.chat_name
        )
