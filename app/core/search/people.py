"""Query understanding for people: names of known senders mentioned in a query, and where they talk.

A query that names someone ("what did Caroline say about the adoption agency?") is most likely
about a conversation that person takes part in; search boosts those conversations rather than
filtering to them, since the answer may come from the other side of the conversation.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import select

from app.core.storage.db import Database
from app.core.storage.keyword import STOPWORDS
from app.core.storage.models import RawMessageRow

log = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W_][\w'.-]*", re.UNICODE)
MIN_NAME_LENGTH = 3
RENEW_DELAY_S = 1.0  # a search takes well under this: the one that found the directory expired ends first


@dataclass(frozen=True, slots=True)
class Mentions:
    persons: frozenset[str]  # stored `person` values named in the query
    channels: frozenset[tuple[str, str]]  # (platform, channel) those persons write in

    @classmethod
    def none(cls) -> Mentions:
        return cls(frozenset(), frozenset())


class PeopleDirectory:
    """Known senders per user, read again every `ttl` seconds (one GROUP BY over a covering index).

    Only the first read waits. After that an expired directory keeps answering while a thread
    reads it anew, `renew_delay` seconds later so that the search which found it expired is not
    slowed by it either: at 1M messages the GROUP BY costs ~125-160 ms of CPU, which every search
    after 30 s without one (a person typing now and then) paid on its critical path
    (docs/benchmarks.md, "1M: p50 margin"). New senders are found once the read completes,
    as they were found once the `ttl` expired."""

    def __init__(self, db: Database, *, ttl: float = 30.0) -> None:
        self._db = db
        self._ttl = ttl
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, dict[str, set[str]], dict[str, set[tuple[str, str]]]]] = {}
        self._reading: set[str] = set()  # users whose directory a background read is renewing
        self.renew_delay = RENEW_DELAY_S
        self.background_reads = 0  # a test counts them

    def invalidate(self) -> None:
        with self._lock:
            self._cache.clear()

    def _load(self, user_id: str) -> tuple[dict[str, set[str]], dict[str, set[tuple[str, str]]]]:
        with self._lock:
            cached = self._cache.get(user_id)
            if cached is not None:
                if time.monotonic() - cached[0] >= self._ttl and user_id not in self._reading:
                    self._reading.add(user_id)
                    threading.Thread(
                        target=self._renew, args=(user_id,), daemon=True, name="strata-people"
                    ).start()
                return cached[1], cached[2]
        return self._read(user_id)

    def _renew(self, user_id: str) -> None:
        try:
            time.sleep(self.renew_delay)
            self._read(user_id)
            self.background_reads += 1
        except Exception:  # the expired directory keeps answering; the next search tries again
            log.warning("could not read the people directory again", exc_info=True)
        finally:
            with self._lock:
                self._reading.discard(user_id)

    def _read(self, user_id: str) -> tuple[dict[str, set[str]], dict[str, set[tuple[str, str]]]]:
        by_token: dict[str, set[str]] = defaultdict(set)
        where: dict[str, set[tuple[str, str]]] = defaultdict(set)
        with self._db.read() as session:
            rows = session.execute(
                select(RawMessageRow.person, RawMessageRow.platform, RawMessageRow.channel)
                .where(RawMessageRow.user_id == user_id, RawMessageRow.person != "")
                .group_by(RawMessageRow.person, RawMessageRow.platform, RawMessageRow.channel)
            ).all()
        for person, platform, channel in rows:
            where[person].add((platform, channel))
            # A person is mentioned by their full name or any name part ("anna" for "Anna Berg").
            for token in {person.lower(), *(w.lower() for w in _WORD.findall(person))}:
                if len(token) >= MIN_NAME_LENGTH and token not in STOPWORDS:
                    by_token[token].add(person)
        with self._lock:
            self._cache[user_id] = (time.monotonic(), by_token, where)
        return by_token, where

    def mentions(self, user_id: str, query: str) -> Mentions:
        by_token, where = self._load(user_id)
        return self._mentions(by_token, where, query)

    def mentions_if_read(self, user_id: str, query: str) -> Mentions | None:
        """`mentions`, or None while the directory was never read (instead of reading it now):
        for a caller that must not wait on SQLite, such as the REST server's event loop."""
        with self._lock:
            if user_id not in self._cache:
                return None
        by_token, where = self._load(user_id)  # read: answers at once (renewed in the background)
        return self._mentions(by_token, where, query)

    @staticmethod
    def _mentions(
        by_token: dict[str, set[str]], where: dict[str, set[tuple[str, str]]], query: str
    ) -> Mentions:
        persons: set[str] = set()
        for word in _WORD.findall(query.lower()):
            word = word.removesuffix("'s").strip(".-'")
            persons |= by_token.get(word, set())
        channels = {c for p in persons for c in where.get(p, ())}
        return Mentions(frozenset(persons), frozenset(channels))
