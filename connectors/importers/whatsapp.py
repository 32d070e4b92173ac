"""WhatsApp "Export chat" text (Android and iOS layouts, .txt or the .zip around it) → RawMessage.

Exports carry local wall-clock times in the phone's locale (clocks and markers:
`whatsapp_clock.py`): the date order (day/month/year, month/day/year or year first) is decided
from the whole file before anything is parsed (the order that fits the most dates wins; when
two fit equally, the one that keeps the file chronological; a true tie assumes day-first and
says so). A line that cannot be read is reported and skipped with its message; only a file
that does not start like a WhatsApp chat is refused. Ids are
`whatsapp:<sha1(chat, local time, sender, ordinal)>`, where the ordinal counts the sender's
messages within that same minute/second, so re-importing the same export is a no-op.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, tzinfo
from pathlib import Path
from typing import IO

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage
from app.core.errors import InvalidInput
from connectors.importers.base import ImportLog, malformed, require_exists
from connectors.importers.whatsapp_clock import INVISIBLE, Header, clock_hour, parse_header

PLATFORM = "whatsapp"
DATE_ORDERS = ("DMY", "MDY", "YMD")
# Marks stripped from sender names. Kept as it was when ids were first derived: the sender is
# part of the id, so widening this set would give already-imported chats new ids.
_MARKS = "\u200e\u200f\ufeff\u202a\u202c"
# A file whose first message header is not within this many non-blank lines is not a WhatsApp
# export (refused whole); lines before a header that does come are reported and skipped.
_LAYOUT_WINDOW = 10
_IOS_ATTACHED = re.compile(r"^<attached: (?P<name>[^>]+)>$")
# Android writes the note in the phone language: English, Spanish ("archivo adjunto").
_ANDROID_ATTACHED = re.compile(r"^(?P<name>\S.*?) \((?:file attached|archivo adjunto)\)$")
_OMITTED = re.compile(
    r"^(?:<Media omitted>|(?:image|video|audio|sticker|GIF|document|Contact card) omitted)$"
)
_DELETED = {
    "This message was deleted",
    "This message was deleted.",
    "You deleted this message",
    "You deleted this message.",
}
_EDITED = "<This message was edited>"


def _orders_for(fields: tuple[str, str, str]) -> set[str]:
    a, b, c = (int(f) for f in fields)
    if len(fields[0]) == 4:
        return {"YMD"} if 1 <= b <= 12 and 1 <= c <= 31 else set()
    found = set()
    if 1 <= a <= 31 and 1 <= b <= 12:
        found.add("DMY")
    if 1 <= a <= 12 and 1 <= b <= 31:
        found.add("MDY")
    return found


class WhatsAppImporter:
    """Two streaming passes: detect the date order, then parse."""

    format = "whatsapp"

    def __init__(
        self, tz: tzinfo | None = None, date_order: str | None = None, chat_name: str | None = None
    ) -> None:
        if date_order is not None and date_order.upper() not in DATE_ORDERS:
            raise malformed(
                "--date-order", None, f"must be one of {', '.join(DATE_ORDERS)}, not {date_order!r}"
            )
        self._tz = tz
        self._order = date_order.upper() if date_order else None
        self._chat_name = chat_name

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        require_exists(path)
        chat = self._chat_name or chat_name_from(path)
        log.note("chat", chat)
        order = self._order or self._detect_order(path, log)
        log.note("date order", order)
        log.note("time zone", str(self._tz) if self._tz else "this computer's local time")
        yield from self._parse(path, chat, order, log)

    # -- reading -------------------------------------------------------------------------
    def _lines(self, path: Path) -> Iterator[tuple[int, str, str, str | None]]:
        """(line number, text, source name, decoding problem) for the chat text of a .txt or .zip.

        A line that is not valid UTF-8 is decoded with replacement characters and comes with
        the problem, so the parser can tell whether it starts a message before skipping it.
        """
        with _open_chat(path) as (raw, source):
            for number, data in enumerate(raw, start=1):
                try:
                    text, problem = data.decode("utf-8"), None
                except UnicodeDecodeError as exc:
                    text, problem = data.decode("utf-8", "replace"), f"is not valid UTF-8 ({exc.reason})"
                yield number, text.rstrip("\r\n"), source, problem

    # -- pass 1: date order ---------------------------------------------------------------
    def _detect_order(self, path: Path, log: ImportLog) -> str:
        """The date order that fits the most headers; chronology breaks ties, then day-first."""
        fits: Counter[str] = Counter()
        previous: dict[str, tuple[int, int, int]] = {}
        backwards: Counter[str] = Counter()
        seen_header = False
        leading: list[tuple[str, int, str]] = []  # non-blank lines before the first header
        for number, text, source, _problem in self._lines(path):
            header = parse_header(text, number)
            if header is None:
                if not seen_header and text.strip(INVISIBLE + " \t"):
                    leading.append((source, number, text))
                    if len(leading) >= _LAYOUT_WINDOW:
                        raise _unknown_layout(*leading[0])
                continue
            seen_header = True
            # A line whose date fits no order is reported in pass 2; it does not vote here.
            for order in _orders_for(header.fields):
                fits[order] += 1
                key = _ymd(header.fields, order)
                if order in previous and key < previous[order]:
                    backwards[order] += 1
                previous[order] = key
        if not seen_header:
            if leading:
                raise _unknown_layout(*leading[0])
            raise malformed(path.name, None, "is empty: no WhatsApp messages found")
        if not fits:
            raise malformed(
                path.name,
                None,
                "no message date is a real day in any order (day/month/year, month/day/year, year first)",
                hint="choose the .txt written by WhatsApp's 'Export chat'",
            )
        best = max(fits.values())
        ranked = sorted(
            (o for o in DATE_ORDERS if fits[o] == best), key=lambda o: (backwards[o], DATE_ORDERS.index(o))
        )
        if len(ranked) > 1 and backwards[ranked[0]] == backwards[ranked[1]]:
            log.warn(
                f"dates are ambiguous (no day above 12); assumed {ranked[0]}; use --date-order to override"
            )
        return ranked[0]

    # -- pass 2: messages -----------------------------------------------------------------
    def _parse(self, path: Path, chat: str, order: str, log: ImportLog) -> Iterator[RawMessage]:
        current: tuple[Header, datetime] | None = None  # the open message and its wall-clock time
        body: list[str] = []
        ordinals: dict[tuple[str, str], int] = {}
        last_local = ""
        dropping = False  # the lines after a skipped header belong to the skipped message
        source = path.name
        undecodable = 0
        for number, text, source, problem in self._lines(path):
            undecodable += problem is not None
            header = parse_header(text, number)
            if header is None:
                if problem is not None:
                    log.reject(source, number, f"{problem}; this line of the message was left out")
                elif dropping:
                    continue
                elif current is None:
                    if text.strip(INVISIBLE + " \t"):
                        log.reject(source, number, _NOT_A_MESSAGE.format(text=text[:60]))
                else:
                    body.append(text)
                continue
            if current is not None:
                message, last_local = self._build(*current, body, chat, source, ordinals, last_local, log)
                if message is not None:
                    yield message
            current, body, dropping = None, [], False
            local = self._local_time(header, order)
            if isinstance(local, str) or problem is not None:
                reason = problem if problem is not None else local
                log.reject(source, number, f"{reason}; the message was skipped")
                dropping = True
                continue
            current, body = (header, local), [header.rest]
        if current is not None:
            message, _ = self._build(*current, body, chat, source, ordinals, last_local, log)
            if message is not None:
                yield message
        if undecodable:
            log.warn(
                f"{undecodable} line(s) are not valid UTF-8 and were left out; WhatsApp writes UTF-8, "
                "so the file may have been re-saved in another encoding"
            )

    def _build(
        self,
        header: Header,
        local: datetime,
        body: list[str],
        chat: str,
        source: str,
        ordinals: dict[tuple[str, str], int],
        last_local: str,
        log: ImportLog,
    ) -> tuple[RawMessage | None, str]:
        stamp = local.isoformat()
        if stamp > last_local:
            ordinals.clear()  # exports are chronological; older minutes can no longer recur
        first, *more = body
        sender, sep, text = first.partition(": ")
        if not sep:  # Android notices ("Alice added Bob") have no "Name: " part
            system, person, head = True, "WhatsApp", first
        else:
            head = text.lstrip(_MARKS)
            media = _IOS_ATTACHED.match(head) or _OMITTED.match(head) or head in _DELETED
            # iOS prefixes its own notices (and media lines) with U+200E after the chat name.
            system = text[:1] in _MARKS and not media
            person = "WhatsApp" if system else sender.strip(_MARKS + " ")
        lines = [head, *more]
        content = "\n".join(lines).strip()
        metadata: dict[str, object] = {"chat": chat, "local_time": stamp, "source": "whatsapp_export"}
        if content.endswith(_EDITED):
            content = content[: -len(_EDITED)].rstrip()
            metadata["edited"] = True
        attachments: list[Attachment] = []
        kept: list[str] = []
        for line in content.split("\n"):
            clean = line.strip(_MARKS + " ")
            found = _IOS_ATTACHED.match(clean) or _ANDROID_ATTACHED.match(clean)
            if found:
                attachments.append(Attachment(name=found.group("name")))
                kept.append(f"[attachment: {found.group('name')}]")
            elif _OMITTED.match(clean):
                attachments.append(Attachment(name=clean))
                kept.append(f"[{clean.strip('<>').lower()}]")
            else:
                kept.append(line)
        content = "\n".join(kept).strip()
        if not system and content in _DELETED:
            log.skip("deleted message")
            return None, stamp
        if not content:
            log.skip("empty message")
            return None, stamp
        if system:
            metadata["system"] = True
        key = (stamp, person)
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        digest = hashlib.sha1(f"{chat}\x1f{stamp}\x1f{person}\x1f{ordinal}".encode()).hexdigest()[:32]
        moment = local.replace(tzinfo=self._tz) if self._tz else local.astimezone()
        message = RawMessage(
            platform=PLATFORM,
            message_id=f"whatsapp:{digest}",
            channel=chat,
            person=person,
            timestamp=datetime_to_ms(moment),
            content=content,
            attachments=tuple(attachments),
            metadata=metadata,
        )
        return message, max(stamp, last_local)

    @staticmethod
    def _local_time(header: Header, order: str) -> datetime | str:
        """The wall-clock time of a header, or the reason it is impossible."""
        year, month, day = _ymd(header.fields, order)
        try:
            hour = clock_hour(header.hour, header.ampm)
        except ValueError as exc:
            return str(exc)
        try:
            return datetime(year, month, day, hour, header.minute, header.second)
        except ValueError as exc:
            return f"impossible date or time ({exc}) for order {order}; pass --date-order if that is wrong"


def _ymd(fields: tuple[str, str, str], order: str) -> tuple[int, int, int]:
    a, b, c = (int(f) for f in fields)
    if order == "YMD":
        return a, b, c
    year = c + 2000 if c < 100 else c
    return (year, b, a) if order == "DMY" else (year, a, b)


_NOT_A_MESSAGE = (
    "{text!r} does not start like a WhatsApp message ('31/12/2020, 21:41 - Name: text' or "
    "'[31/12/2020, 21:41:05] Name: text') and follows no message; skipped"
)


def _unknown_layout(source: str, number: int, text: str) -> InvalidInput:
    return malformed(
        source,
        f"line {number}",
        f"unknown date layout: {text[:60]!r} does not start like a WhatsApp message "
        "('31/12/2020, 21:41 - Name: text' or '[31/12/2020, 21:41:05] Name: text')",
        hint="choose the .txt written by WhatsApp's 'Export chat' (docs/importers.md lists the clocks read)",
    )


def chat_name_from(path: Path) -> str:
    """'WhatsApp Chat with Anna.txt' / 'WhatsApp Chat - Anna.zip' → 'Anna'; else the file stem."""
    stem = path.stem
    for prefix in ("WhatsApp Chat with ", "WhatsApp Chat - ", "WhatsApp Chat "):
        if stem.startswith(prefix):
            return stem[len(prefix) :].strip() or stem
    return stem


@contextmanager
def _open_chat(path: Path) -> Iterator[tuple[IO[bytes], str]]:
    """The chat text as a binary line stream: the file itself, or `_chat.txt` inside an export zip."""
    if not zipfile.is_zipfile(path):
        with path.open("rb") as fp:
            yield fp, path.name
        return
    try:
        archive = zipfile.ZipFile(path)
        texts = [n for n in archive.namelist() if n.endswith(".txt")]
    except (zipfile.BadZipFile, OSError) as exc:
        raise malformed(path.name, None, f"is not a readable zip ({exc})") from exc
    with archive:
        if not texts:
            raise malformed(path.name, None, "holds no chat .txt file")
        name = "_chat.txt" if "_chat.txt" in texts else texts[0]
        try:
            with archive.open(name) as member:
                yield member, f"{path.name}/{name}"
        except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
            raise malformed(path.name, name, f"cannot be read ({exc}); the zip may be truncated") from exc
