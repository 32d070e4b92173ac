"""`POST /api/import`: upload a chat export (multipart) and preview it or import it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from pydantic import BaseModel, Field

from app.api.deps import get_services
from app.bootstrap import Services
from app.core.errors import InvalidInput
from app.services.import_service import ImportOptions, ImportService

router = APIRouter(tags=["import"])

FORMAT_HELP = "slack, telegram, discord, whatsapp or email; omit to detect from the file"


class ImportErrorOut(BaseModel):
    line: int | None = None
    message_id: str | None = None
    reason: str


class ImportPreviewOut(BaseModel):
    format: str
    source: str
    messages: int = Field(description="messages the file holds (after skipping empty/deleted ones)")
    channels: dict[str, int] = Field(description="messages per channel")
    persons: dict[str, int] = Field(description="messages per person")
    first: str | None = Field(description="ISO-8601 time of the oldest message")
    last: str | None = Field(description="ISO-8601 time of the newest message")
    sample: list[dict[str, Any]]
    skipped: dict[str, int] = Field(description="entries left out, by reason")
    warnings: list[str]
    details: dict[str, str] = Field(description="facts detected about the file (layout, date order, team)")
    errors: list[ImportErrorOut] = Field(
        default_factory=list,
        description="entries of a recognized file that could not be read, skipped (file, line, reason)",
    )


class ImportOut(BaseModel):
    format: str
    dry_run: bool
    preview: ImportPreviewOut
    imported: int = 0
    duplicates: int = 0
    updated: int = 0
    errors: list[ImportErrorOut] = Field(default_factory=list)
    seconds: dict[str, float]


def _one_of(values: tuple[str, ...]) -> dict[str, Any]:
    """Choices declared in the schema (the handler still answers 400 naming them)."""
    return {"anyOf": [{"type": "string", "enum": list(values)}, {"type": "null"}]}


@router.post(
    "/import",
    response_model=ImportOut,
    summary="Import a chat export: Slack zip, Telegram result.json, Discord JSON, WhatsApp, mbox/.eml",
)
def import_export(
    file: UploadFile = File(..., description="the export file as the platform wrote it"),
    format: str | None = Form(
        None, description=FORMAT_HELP, json_schema_extra=_one_of(ImportService.formats)
    ),
    dry_run: bool = Form(False, description="only parse and summarize; store nothing"),
    tz: str | None = Form(
        None, description="IANA zone for exports with local times (WhatsApp, old Telegram)"
    ),
    date_order: str | None = Form(
        None,
        description="WhatsApp date order DMY, MDY or YMD; detected if omitted",
        json_schema_extra=_one_of(("DMY", "MDY", "YMD")),
    ),
    chat_name: str | None = Form(None, description="WhatsApp chat name; taken from the file name if omitted"),
    services: Services = Depends(get_services),
) -> ImportOut:
    """The whole file is validated before anything is stored; a malformed file returns 400 naming
    the entry and line, with nothing imported. Importing the same file again is a no-op."""
    if format is not None and format not in services.imports.formats:
        raise InvalidInput(f"unknown format {format!r}", hint=FORMAT_HELP)
    # Keep the uploaded name: WhatsApp takes the chat name from it and detection uses the suffix.
    name = Path(file.filename or "upload").name or "upload"
    options = ImportOptions(tz=tz or None, date_order=date_order or None, chat_name=chat_name or None)
    with tempfile.TemporaryDirectory(prefix="strata-import-") as folder:
        path = Path(folder) / name
        with path.open("wb") as out:
            shutil.copyfileobj(file.file, out, length=1 << 20)
        report = services.imports.run(format or None, path, options, dry_run=dry_run, source=name)
    return ImportOut.model_validate(report.to_dict())
