"""E-mail from an mbox file, a single .eml, or a folder of .eml files → RawMessage.

Parsed with the stdlib `email` package and `policy.default` (RFC 2047 headers decoded, MIME
walked). Text/plain is preferred over HTML (HTML is reduced to text); unknown or lying charsets
fall back to UTF-8, then Windows-1252, never failing the import. The channel is the thread's root
Message-ID (first of References, else In-Reply-To, else the message's own), so a thread stays
together. Ids are `email:<Message-ID without angle brackets>`; a message without one gets
`<sha1 of sender, date, subject, body>@strata.invalid`, stable across re-imports.
"""

from __future__ import annotations

import hashlib
import mailbox
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage
from connectors.importers.base import ImportLog, malformed, nonempty, require_exists

_QUOTED_FROM = re.compile(r"^>(>*From )", re.MULTILINE)
PLATFORM = "email"
_ID = re.compile(r"<([^<>\s]+)>")
_BLOCK_TAGS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table"}


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head", "title"):
            self._hidden += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head", "title"):
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _TextOfHtml()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def message_ids(value: str | None) -> list[str]:
    """Message-IDs in a header value, without angle brackets, in order."""
    if not value:
        return []
    found = _ID.findall(str(value))
    if found:
        return found
    bare = str(value).strip().strip("<>")
    return [bare] if bare else []


class EmailImporter:
    """mbox is read through `mailbox.mbox` (an index of offsets), one message in memory at a time."""

    format = "email"

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        require_exists(path)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".eml", ".mbox"))
            if not files:
                raise malformed(path.name, None, "holds no .eml or .mbox files")
        else:
            files = [path]
        for file in files:
            if _is_mbox(file):
                log.note("layout", "mbox")
                yield from self._mbox(file, log)
            else:
                log.note("layout", "eml")
                msg = BytesParser(policy=policy.default).parsebytes(file.read_bytes())
                if not any(msg.get(h) for h in ("From", "Date", "Message-ID", "Subject")):
                    what = "is not an e-mail: no From, Date, Message-ID or Subject header"
                    if len(files) == 1:
                        raise malformed(file.name, None, what)
                    log.reject(file.name, None, f"{what}; skipped")  # one stray file in a folder
                    continue
                message = self._message(msg, file.name, None, None, log)  # type: ignore[arg-type]
                if message is not None:
                    yield message

    def _mbox(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        box = mailbox.mbox(path, create=False)
        try:
            parser = BytesParser(policy=policy.default)
            for index, key in enumerate(box.iterkeys()):
                msg = parser.parsebytes(box.get_bytes(key))
                message = self._message(
                    msg, path.name, f"message {index + 1}", lambda k=key: box.get_message(k), log
                )  # type: ignore[arg-type]
                if message is not None:
                    yield message
        finally:
            box.close()

    def _message(
        self, msg: EmailMessage, source: str, where: str | None, mbox_message: Any, log: ImportLog
    ) -> RawMessage | None:
        subject = str(msg.get("Subject") or "").strip()
        body = _body(msg)
        if mbox_message is not None:
            body = unescape_mbox_from(body)
        attachments = _attachments(msg)
        sent = _date(msg, mbox_message)
        if sent is None:
            log.reject(source, None, "has no readable Date header; skipped", entry=where)
            return None
        own = message_ids(msg.get("Message-ID"))
        if own:
            msg_id = own[0]
        else:
            seed = f"{msg.get('From')}\x1f{sent.isoformat()}\x1f{subject}\x1f{body}"
            msg_id = hashlib.sha1(seed.encode("utf-8", "replace")).hexdigest() + "@strata.invalid"
            log.warn(
                "some messages have no Message-ID; their ids are derived from sender, date, subject and body"
            )
        references = message_ids(msg.get("References"))
        parent = message_ids(msg.get("In-Reply-To"))
        root = references[0] if references else parent[0] if parent else msg_id
        content = nonempty(
            f"Subject: {subject}" if subject else None,
            body,
            *(f"[attachment: {a.name}]" for a in attachments),
        )
        if not content:
            log.skip("empty message")
            return None
        senders = getaddresses([str(msg.get("From") or "")])
        name, address = senders[0] if senders else ("", "")
        metadata: dict[str, Any] = {
            "message_id": msg_id,
            "thread": root,
            "subject": subject,
            "from": address,
            "to": [a for _, a in getaddresses([str(v) for v in msg.get_all("To") or []]) if a],
            "cc": [a for _, a in getaddresses([str(v) for v in msg.get_all("Cc") or []]) if a],
            "source": "email_import",
        }
        if parent:
            metadata["in_reply_to"] = parent[0]
        return RawMessage(
            platform=PLATFORM,
            message_id=f"email:{msg_id}",
            channel=root,
            person=name or address or "unknown sender",
            timestamp=datetime_to_ms(sent),
            content=content,
            attachments=attachments,
            metadata=metadata,
        )


def unescape_mbox_from(body: str) -> str:
    """Undo mbox `From ` quoting: mbox writers turn a body line `From x` into `>From x` (mboxrd
    adds one `>` per level), and `mailbox.mbox` hands the quoted text back as it is on disk."""
    return _QUOTED_FROM.sub(r"\1", body)


def _is_mbox(path: Path) -> bool:
    with path.open("rb") as fp:
        return fp.read(5) == b"From "


def _date(msg: EmailMessage, mbox_message: Any) -> datetime | None:
    header = msg.get("Date")
    moment = getattr(header, "datetime", None) if header is not None else None
    if moment is None and mbox_message is not None:
        # Fall back to the mbox "From sender date" separator line, which MUAs always write.
        from_line = mbox_message().get_from() or ""
        parts = from_line.split(None, 1)
        try:
            moment = parsedate_to_datetime(parts[1]) if len(parts) > 1 else None
        except (TypeError, ValueError):
            moment = None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def _decode(part: EmailMessage) -> str:
    try:
        return str(part.get_content())
    except (LookupError, UnicodeError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        for charset in ("utf-8", "cp1252"):
            try:
                return payload.decode(charset)  # type: ignore[union-attr]
            except UnicodeDecodeError:
                continue
        return payload.decode("latin-1")  # type: ignore[union-attr]


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _decode(part)  # type: ignore[arg-type]
    if part.get_content_type() == "text/html":
        return html_to_text(text)
    return text.replace("\r\n", "\n").strip()


def _attachments(msg: EmailMessage) -> tuple[Attachment, ...]:
    found: list[Attachment] = []
    for part in msg.walk():
        if part.is_multipart() or not (part.is_attachment() or part.get_filename()):
            continue
        payload = part.get_payload(decode=True)
        found.append(
            Attachment(
                name=str(part.get_filename() or "attachment"),
                content_type=part.get_content_type(),
                size_bytes=len(payload) if isinstance(payload, bytes) else None,
            )
        )
    return tuple(found)
