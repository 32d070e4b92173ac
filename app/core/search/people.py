"""Query understanding for people: names of known senders mentioned in a query, and where they talk.

A query that names someone ("what did Caroline say about the adoption agency?") is most likely
about a conversation that person takes part in; search boosts those conversations rather than
filtering to them, since the answer may come from the other side of the conversation.
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import select

from app.core.storage.db import Database
from app.core.storage.keyword import STOPWORDS
from app.core.storage.models import RawMessageRow

_WORD = re.compile(r"[^\W_][\w'.-]*", re.UNICODE)
MIN_NAME_LENGTH = 3


@dataclass(frozen=True, slots=True)
class Mentions:
    persons: frozenset[str]  # stored `person` values named in the query
    channels: frozenset[tuple[str, str]]  # (platform, channel) those persons write in

    @classmethod
    def none(cls) -> Mentions:
        return cls(frozenset(), frozenset())


class PeopleDirectory:
    """Known senders per user, cached for `ttl` seconds (refreshing costs one GROUP BY)."""

    def __init__(self, db: Database, *, ttl: float = 30.0) -> None:
        self._db = db
        self._ttl = ttl
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, dict[str, set[str]], dict[str, set[tuple[str, str]]]]] = {}

    def invalidate(self) -> None:
        with self._lock:
            self._cache.clear()

    def _load(self, user_id: str) -> tuple[dict[str, set[str]], dict[str, set[tuple[str, str]]]]:
        with self._lock:
            cached = self._cache.get(user_id)
            if cached and time.monotonic() - cached[0] < self._ttl:
                return cached[1], cached[2]
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
        persons: set[str] = set()
        for word in _WORD.findall(query.lower()):
            word = word.removesuffix("'s").strip(".-'")
            persons |= by_token.get(word, set())
        channels = {c for p in persons for c in where.get(p, ())}
        return Mentions(frozenset(persons), frozenset(channels))
