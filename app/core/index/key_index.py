"""The sentence keys of one data dir: their vector-only corpus, SQLite source and background builder.

Keys cost embedding work (about two short sentences per message), so they are never built on
the ingest path: a message is stored and keyword-searchable, then its own vector is embedded
(inline or by the message backlog), and only then does this backlog embed its keys, in a
worker thread that waits while the message backlog still has rows. Until its keys exist a
message is found through its own vector and words, as before.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from app.core.clock import Clock
from app.core.embeddings.base import Embedder
from app.core.index import maintenance
from app.core.index.backlog import BacklogStatus, EmbeddingBacklog
from app.core.index.corpus import Corpus
from app.core.index.key_source import MessageKeySource
from app.core.index.key_text import MAX_KEYS
from app.core.index.lease import WriterLeases
from app.core.index.maintenance import KindReport, Progress
from app.core.index.message_keys import MESSAGE_KEY_SPEC, key_of
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorStore

log = logging.getLogger(__name__)

# How often the key worker looks again while the message backlog is still draining.
_WAIT_FOR_MESSAGES_S = 0.5


class MessageKeys:
    def __init__(
        self,
        db: Database,
        vectors: VectorStore,
        embedder: Embedder,
        keywords: KeywordIndex,
        clock: Clock,
        *,
        leases: WriterLeases | None = None,
        messages: EmbeddingBacklog | None = None,
        batch_size: int = 256,
    ) -> None:
        self.db = db
        self.corpus = Corpus(MESSAGE_KEY_SPEC, vectors, embedder, keywords, leases=leases)
        self.source = MessageKeySource(clock)
        self.backlog = EmbeddingBacklog(db, self.corpus, self.source, leases, batch_size=batch_size)
        self.messages = messages
        self._closing = threading.Event()
        self._waiter: threading.Thread | None = None
        self._lock = threading.Lock()

    def notify(self) -> None:
        """Messages were stored: build their keys in the background once their vectors exist."""
        if self.messages is None or not self.messages.autostart:
            if self.messages is None:
                self.backlog.notify()
            return
        with self._lock:
            if self._waiter is not None and self._waiter.is_alive():
                return
            self._waiter = threading.Thread(target=self._after_messages, name="strata-keys-wait", daemon=True)
            self._waiter.start()

    def _after_messages(self) -> None:
        """The message backlog goes first: keys wait until it is empty (or this process closes)."""
        try:
            while self.messages is not None and self.messages.pending():
                if self._closing.wait(_WAIT_FOR_MESSAGES_S):
                    return
            if not self._closing.is_set():
                self.backlog.notify()
        except Exception:  # the next notify or repair tries again
            log.exception("sentence keys: waiting for the message backlog failed")

    def build_now(self, message_ids: Sequence[int]) -> int:
        """Key these messages now, on the caller's thread (small writes: read-after-write, as their
        own vectors are embedded inline). Returns how many keys were embedded."""
        with self.db.read() as session:
            docs = self.source.documents(session, [str(i) for i in message_ids])
        if not docs:
            return 0
        keyed = [d for d in docs if d.document]
        with self.corpus.writing():
            if keyed:
                self.corpus.embed(keyed)
            model = self.corpus.embedder
            with self.db.write() as session:
                self.source.stamp(session, docs, model.model_id, model.dimensions)
        return len(keyed)

    def wait(
        self, timeout_s: float | None = 60.0, progress: Callable[[BacklogStatus], None] | None = None
    ) -> BacklogStatus:
        """Block until the keys of what was stored so far are built (import, tests, benchmarks)."""
        waiter = self._waiter
        if waiter is not None and waiter is not threading.current_thread():
            waiter.join(timeout_s)
        return self.backlog.wait(progress, timeout_s=timeout_s)

    def repair(self, full: bool, progress: Progress | None) -> KindReport:
        """Build missing keys (the backlog, by message), then the generic repair (orphans, stale)."""
        drained = self.backlog.drain().embedded
        report = maintenance.repair(self.db, self.corpus, self.source, full=full, progress=progress)
        return dataclasses.replace(report, reembedded=report.reembedded + drained)

    def remove(self, message_ids: Sequence[int]) -> None:
        """Drop the key vectors of messages that are gone (their stamps go with the rows)."""
        keys = [key_of(m, n) for m in message_ids for n in range(MAX_KEYS)]
        self.corpus.remove_vectors(keys)

    def on_messages_archived(self, message_ids: Sequence[int]) -> None:
        """Forgetting hook: an archived message leaves normal search, so its keys go (they would
        only take candidate places and wait for a repair); the stamps go too, so that an undo
        makes the message pending again."""
        self.remove(message_ids)
        with self.db.write() as session:
            self.source.forget(session, message_ids)

    def on_messages_restored(self, message_ids: Sequence[int]) -> None:
        """Forgetting-undo hook: the restored messages' keys are built again in the background."""
        self.notify()

    def on_messages_deleted(self, user_id: str, erased: Sequence[Any]) -> dict[str, int]:
        """Deletion hook: the deleted messages' keys go with them."""
        self.remove([row.id for row in erased])
        return {}

    def close(self) -> None:
        self._closing.set()
        waiter = self._waiter
        if waiter is not None and waiter is not threading.current_thread():
            waiter.join(5.0)
        self.backlog.close()
