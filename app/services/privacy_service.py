"""Privacy use cases: mask what leaves the machine, scan stored text for secrets, report LLM usage."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from app.core.clock import Clock, iso
from app.core.domain import SearchHit
from app.core.errors import Conflict, InvalidInput
from app.core.privacy.detector import Detector, apply, placeholders
from app.core.privacy.injection import FLAG, injection_signals
from app.core.privacy.windows import masked_excerpt, masked_page
from app.core.settings import Settings
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow
from app.services.llm import UsageReport, build_detector, usage_report
from knowledge_base.models import RagDocumentRow

# Keys of JSON results whose string values are message or document text (masked on the way out);
# ids, names, channels and times are left alone so an agent can still filter and cite.
TEXT_KEYS = frozenset(
    [
        "content",
        "snippet",
        "text",
        "summary",
        "summaryText",
        "summary_text",
        "keyPoints",
        "key_points",
        "pageContent",
        "page_content",
        "title",
        "description",
        "details",
        "event",
    ]
)
SCAN_BATCH = 1000
PREVIEW_CHARS = 160
# Scan: credentials, card numbers and IBANs by default; e-mails and phones only when asked (`--pii`).
SENSITIVE = ("secrets", "cards", "ibans")


@dataclass(frozen=True, slots=True)
class ScanItem:
    """One stored record holding sensitive values; `preview` is masked, the values never appear."""

    kind: str  # "message" or "document"
    id: str
    where: str
    at: int | None
    findings: tuple[str, ...]
    preview: str

    def to_dict(self) -> dict[str, Any]:
        route = "messages" if self.kind == "message" else "kb/documents"
        return {
            "kind": self.kind,
            "id": self.id,
            "where": self.where,
            "time": iso(self.at) if self.at else None,
            "findings": list(self.findings),
            "preview": self.preview,
            "delete": f"DELETE /api/{route}/{self.id}",
        }


@dataclass(frozen=True, slots=True)
class ScanReport:
    scanned_messages: int
    scanned_documents: int
    classes: tuple[str, ...]
    items: tuple[ScanItem, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scannedMessages": self.scanned_messages,
            "scannedDocuments": self.scanned_documents,
            "classes": list(self.classes),
            "found": len(self.items),
            "items": [i.to_dict() for i in self.items],
        }


class PrivacyService:
    def __init__(self, settings: Settings, db: Database, clock: Clock) -> None:
        self.settings = settings
        self.db = db
        self.clock = clock
        self.detector = build_detector(settings.privacy)

    # -- results headed for an agent ----------------------------------------------------------
    def check_reveal(self, reveal: bool) -> bool:
        """True when the verbatim text may be returned; asking without the setting is an error."""
        if reveal and not self.settings.privacy.allow_reveal:
            raise InvalidInput(
                "reveal=true is turned off: detected secrets stay masked in results",
                hint="set [privacy] allow_reveal = true in settings.toml to allow it",
            )
        return reveal

    def check_no_new_placeholders(self, name: str, submitted: str, stored: str | None) -> None:
        """Refuse a write whose text holds more of a placeholder than the stored file does verbatim:
        it was read masked, and writing it back would replace the user's secrets with placeholders."""
        if stored is None:
            return  # a new file: there is nothing to overwrite
        before = placeholders(stored)
        added = sorted(p for p, n in placeholders(submitted).items() if n > before[p])
        if added:
            raise Conflict(
                f"{name}: this text holds masked placeholders such as {', '.join(added[:5])} that are "
                "not in the stored file; writing it would replace your secrets with placeholders",
                hint="read with reveal=true to edit a file that holds secrets "
                "(needs [privacy] allow_reveal = true), or remove the placeholders",
            )

    def mask(self, text: str | None) -> str | None:
        return self.detector.mask(text) if text else text

    def page(self, text: str, offset: int, size: int, *, reveal: bool = False) -> tuple[str, int]:
        """text[offset:end] for a paged result and its end, masked as it reads in the whole text
        (a secret cut by the page edge is not returned in halves; the end never cuts one)."""
        if reveal and self.check_reveal(reveal):
            end = min(len(text), offset + size)
            return text[offset:end], end
        return masked_page(self.detector, text, offset, size)

    def mask_excerpt(self, excerpt: str | None, container: str | None, *, reveal: bool = False) -> str | None:
        """A knowledge-base chunk masked as it reads in its document (chunks cut secrets too)."""
        if not excerpt or (reveal and self.check_reveal(reveal)):
            return excerpt
        return masked_excerpt(self.detector, excerpt, container)

    def mask_payload(self, value: Any, *, reveal: bool = False) -> Any:
        """A copy of a JSON-like result with the text fields masked (unless revealing is allowed)."""
        if reveal and self.check_reveal(reveal):
            return value
        return self._walk(value, key=None)

    def outgoing(
        self, item: dict[str, Any], *, text: str | None, metadata: dict[str, Any] | None = None,
        reveal: bool = False, masked_before: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """One record for an agent: text fields masked (`masked: true` when anything was, here or
        before: `masked_before` for text masked in its context by the caller), and
        `untrusted: true, flags: [...]` when the verbatim `text` reads like a prompt injection."""
        out: dict[str, Any] = self.mask_payload(item, reveal=reveal)
        return self.marked(out, text=text, metadata=metadata, masked=masked_before or out != item)

    def marked(
        self, out: dict[str, Any], *, text: str | None, metadata: dict[str, Any] | None = None, masked: bool
    ) -> dict[str, Any]:
        """A record already masked, marked for an agent: `masked: true` when anything was, and
        `untrusted: true, flags: [...]` when the verbatim `text` reads like a prompt injection."""
        if masked:
            out["masked"] = True
        flags = self.flags(text, metadata)
        if flags:
            out["flags"] = flags
            out["untrusted"] = True
        return out

    def _walk(self, value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: self._walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v, key) for v in value]
        if isinstance(value, str) and key in TEXT_KEYS:
            return self.detector.mask(value)
        return value

    def for_display(self, hits: list[SearchHit]) -> list[SearchHit]:
        """Hits for the desktop list: text masked (verbatim kept in `extra` for click-to-reveal),
        injection-like text flagged in `extra["flags"]`."""
        out = []
        for hit in hits:
            masked = self.detector.mask(hit.content) if hit.content else hit.content
            flags = self.flags(hit.content)
            if masked == hit.content and not flags:
                out.append(hit)
                continue
            extra = {**hit.extra, "flags": flags} if flags else dict(hit.extra)
            if masked != hit.content:
                extra["verbatim"] = hit.content
            out.append(replace(hit, content=masked, extra=extra))
        return out

    @staticmethod
    def flags(text: str | None, metadata: dict[str, Any] | None = None) -> list[str]:
        """["prompt_injection"] when the text reads like instructions to a model (stored flag or text)."""
        stored = list((metadata or {}).get("flags") or [])
        if FLAG not in stored and injection_signals(text):
            stored.append(FLAG)
        return stored

    # -- the scan -------------------------------------------------------------------------------
    def scan(self, *, include_pii: bool = False, limit: int = 1000) -> ScanReport:
        classes = tuple(c for c in self.settings.privacy.redact if include_pii or c in SENSITIVE) or SENSITIVE
        detector = Detector(classes, phone_regions=self.settings.privacy.phone_regions)
        items: list[ScanItem] = []
        messages = documents = 0
        for row in self._messages():
            messages += 1
            found = detector.find(row.content or "")
            if found and len(items) < limit:
                where = f"{row.platform}/{row.channel} by {row.person}"
                items.append(
                    self._item("message", str(row.id), where, row.timestamp, row.content or "", found)
                )
        doc = RagDocumentRow
        with self.db.read() as session:
            rows = session.execute(
                select(doc.id, doc.file_name, doc.uploaded_at, doc.content)
                .where(doc.user_id == self.settings.user_id)
                .order_by(doc.uploaded_at)
            ).all()
        for doc_id, name, at, content in rows:
            documents += 1
            found = detector.find(content or "")
            if found and len(items) < limit:
                items.append(self._item("document", doc_id, name, at, content or "", found))
        return ScanReport(messages, documents, classes, tuple(items))

    def _messages(self) -> Iterator[RawMessageRow]:
        """Every stored message of the user (archived ones too: their text is still on disk), in batches."""
        last = 0
        while True:
            with self.db.read() as session:
                batch = list(
                    session.scalars(
                        select(RawMessageRow)
                        .where(RawMessageRow.user_id == self.settings.user_id, RawMessageRow.id > last)
                        .order_by(RawMessageRow.id)
                        .limit(SCAN_BATCH)
                    )
                )
                session.expunge_all()
            if not batch:
                return
            yield from batch
            last = batch[-1].id

    def _item(
        self, kind: str, item_id: str, where: str, at: int | None, text: str, found: tuple[Any, ...]
    ) -> ScanItem:
        # The preview is masked with every configured class, not only the ones scanned for.
        preview = self.detector.mask(_preview(text, found))
        return ScanItem(kind, item_id, where, at, tuple(sorted({f.kind for f in found})), preview)

    # -- LLM usage ------------------------------------------------------------------------------
    def llm_usage(self, days: int = 30) -> UsageReport:
        return usage_report(self.settings, self.db, self.clock, days=days)


def _preview(text: str, findings: tuple[Any, ...]) -> str:
    """The text around the first finding, masked, so the user recognizes the record."""
    first = findings[0]
    start = max(0, first.start - PREVIEW_CHARS // 2)
    masked = apply(text, findings)
    # Offsets shift after masking; re-anchor on the first placeholder instead.
    anchor = masked.find(first.placeholder, max(0, start - 10))
    begin = max(0, anchor - PREVIEW_CHARS // 2)
    snippet = masked[begin : begin + PREVIEW_CHARS].replace("\n", " ")
    return ("…" if begin else "") + snippet + ("…" if begin + PREVIEW_CHARS < len(masked) else "")
