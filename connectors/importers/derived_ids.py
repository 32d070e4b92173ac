"""Stable message ids for exports that carry none: a digest of what the record holds."""

from __future__ import annotations

import hashlib


class DerivedIds:
    """Ids `<platform>:derived:<sha1(chat, time, sender, text, n)>` for one chat of one export.

    `n` counts identical records (same time, sender and text) so true repeats stay apart.
    Exports are chronological, so the counter is forgotten whenever time moves past every
    time seen before; memory stays at one timestamp's worth of records.
    """

    def __init__(self, chat_key: str, platform: str = "telegram") -> None:
        self._chat = chat_key
        self._platform = platform
        self._latest: int | None = None
        self._seen: dict[str, int] = {}
        self.derived = 0

    def next(self, timestamp: int, sender: str, text: str, native_id: int | str | None = None) -> str:
        if self._latest is None or timestamp > self._latest:
            self._latest = timestamp
            self._seen.clear()
        base = "\x1f".join((self._chat, str(timestamp), sender, text, str(native_id or "")))
        occurrence = self._seen.get(base, 0)
        self._seen[base] = occurrence + 1
        self.derived += 1
        digest = hashlib.sha1(f"{base}\x1f{occurrence}".encode()).hexdigest()[:32]
        return f"{self._platform}:derived:{digest}"
