"""Writer leases: a process writing a kind says so in SQLite, so repair never races a live writer.

A writer stores rows first and vectors a moment later (or vectors first, for documents); seen
from another process, rows in between look exactly like a crash's leftovers. Each writer
therefore holds a lease row in `locks` (`index_writer:<kind>:<token>`) for as long as it writes,
renewed by a heartbeat thread. Repair of a kind waits while any lease of that kind is live; a
writer that died stops renewing, its lease expires after `ttl_ms`, and repair proceeds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import threading
from collections.abc import Iterator

from sqlalchemy import delete, select, update

from app.core.clock import Clock
from app.core.storage.db import Database
from app.core.storage.models import LockRow

log = logging.getLogger(__name__)

PREFIX = "index_writer:"
CLAIM_PREFIX = "index_claim:"
DEFAULT_TTL_MS = 30_000


class WriterLeases:
    """Take, renew and list the writer leases of one data dir."""

    def __init__(self, db: Database, clock: Clock, *, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.db = db
        self.clock = clock
        self.ttl_ms = ttl_ms

    @contextlib.contextmanager
    def hold(self, *kinds: str) -> Iterator[None]:
        """Hold a lease on each kind while the block runs (nested holds of one thread are cheap)."""
        token = f"{os.getpid()}:{secrets.token_hex(6)}"
        keys = [f"{PREFIX}{kind}:{token}" for kind in kinds]
        now = self.clock.now_ms()
        with self.db.write() as session:
            session.add_all(
                LockRow(key=k, token=token, acquired_at=now, expires_at=now + self.ttl_ms) for k in keys
            )
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(keys, stop), daemon=True, name="strata-lease")
        beat.start()
        try:
            yield
        finally:
            stop.set()
            beat.join()
            with self.db.write() as session:
                session.execute(delete(LockRow).where(LockRow.key.in_(keys)))

    @contextlib.contextmanager
    def claim(self, name: str) -> Iterator[str | None]:
        """Exclusive work across processes (one backlog drainer per data dir): yields None when
        this process holds `name` for the block, else the holder's token (`pid:random`).

        Compare-and-set in one write transaction: insert when absent, take over only an expired
        claim (a holder that died stops renewing), so two takers cannot both win."""
        token = f"{os.getpid()}:{secrets.token_hex(6)}"
        key = f"{CLAIM_PREFIX}{name}"
        now = self.clock.now_ms()
        with self.db.write() as session:
            row = session.get(LockRow, key)
            if row is not None and row.expires_at > now:
                holder: str | None = row.token
            else:
                if row is not None:
                    session.delete(row)
                    session.flush()
                session.add(LockRow(key=key, token=token, acquired_at=now, expires_at=now + self.ttl_ms))
                holder = None
        if holder is not None:
            yield holder
            return
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=([key], stop), daemon=True, name="strata-claim")
        beat.start()
        try:
            yield None
        finally:
            stop.set()
            beat.join()
            with self.db.write() as session:
                session.execute(delete(LockRow).where(LockRow.key == key, LockRow.token == token))

    def holder(self, name: str) -> str | None:
        """Token of the live holder of claim `name`, if any."""
        now = self.clock.now_ms()
        with self.db.read() as session:
            row = session.get(LockRow, f"{CLAIM_PREFIX}{name}")
            return row.token if row is not None and row.expires_at > now else None

    def _heartbeat(self, keys: list[str], stop: threading.Event) -> None:
        # Renew at a third of the TTL: two missed beats still leave the lease alive.
        while not stop.wait(self.ttl_ms / 3000):
            try:
                with self.db.write() as session:
                    session.execute(
                        update(LockRow)
                        .where(LockRow.key.in_(keys))
                        .values(expires_at=self.clock.now_ms() + self.ttl_ms)
                    )
            except Exception:  # a busy database must not kill the writer; the next beat retries
                log.warning("could not renew the index writer lease", exc_info=True)

    def live(self, kind: str) -> list[str]:
        """Tokens (`pid:random`) of live writers of `kind`."""
        now = self.clock.now_ms()
        with self.db.read() as session:
            rows = session.execute(
                select(LockRow.token).where(LockRow.key.like(f"{PREFIX}{kind}:%"), LockRow.expires_at > now)
            ).all()
        return [r[0] for r in rows]

    def clear_expired(self) -> int:
        """Drop leases of writers that died (housekeeping; expired leases are ignored anyway)."""
        now = self.clock.now_ms()
        with self.db.write() as session:
            result = session.execute(
                delete(LockRow).where(
                    LockRow.key.like(f"{PREFIX}%") | LockRow.key.like(f"{CLAIM_PREFIX}%"),
                    LockRow.expires_at <= now,
                )
            )
            return int(getattr(result, "rowcount", 0) or 0)
