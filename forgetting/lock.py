"""Per-user forgetting lock in SQLite (`locks` table): compare-and-set with expiry, shared by processes.

Key `memory_forgetting:<userId>`, TTL 60 s, token `<key>:<timestamp>:<random>`. Acquiring is a
CAS inside one BEGIN IMMEDIATE transaction: insert when absent, take over only when expired (the
UPDATE names the old token, so two takers cannot both win). The owner renews from a heartbeat
thread; every group's write transaction re-checks the token, so a run that lost its lease can
never commit another group.
"""

from __future__ import annotations

import logging
import secrets
import threading
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.errors import Conflict
from app.core.storage.db import Database
from app.core.storage.models import LockRow
from forgetting import constants as c

log = logging.getLogger(__name__)


class LockLost(Conflict):
    """The lease expired and another run took it over; this run must stop writing."""

    code = "forgetting_lock_lost"


@dataclass(frozen=True, slots=True)
class LockState:
    key: str
    token: str
    acquired_at: int
    expires_at: int

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "token": self.token,
            "acquiredAt": self.acquired_at,
            "expiresAt": self.expires_at,
        }


def make_token(key: str, now_ms: int) -> str:
    return f"{key}:{now_ms}:{secrets.token_hex(8)}"


def try_acquire(
    session: Session, key: str, token: str, now_ms: int, ttl_ms: int, user_id: str = "local"
) -> bool:
    """CAS inside the caller's write transaction: True when `token` now holds `key`."""
    row = session.get(LockRow, key)
    if row is None:
        try:
            with session.begin_nested():
                session.add(
                    LockRow(
                        key=key,
                        user_id=user_id,
                        token=token,
                        acquired_at=now_ms,
                        expires_at=now_ms + ttl_ms,
                    )
                )
        except IntegrityError:
            return False  # another process inserted first
        return True
    if row.expires_at > now_ms:
        return False
    taken = session.execute(
        update(LockRow)
        .where(LockRow.key == key, LockRow.token == row.token)
        .values(token=token, acquired_at=now_ms, expires_at=now_ms + ttl_ms)
        .execution_options(synchronize_session=False)
    )
    session.expire(row)
    return taken.rowcount == 1


def holds(session: Session, key: str, token: str, now_ms: int) -> bool:
    row = session.scalars(select(LockRow).where(LockRow.key == key)).first()
    return row is not None and row.token == token and row.expires_at > now_ms


class UserLock:
    """The forgetting lease of one user. Use `acquire()`, then `release()` (or `with lease:`)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        user_id: str,
        *,
        ttl_ms: int = c.LOCK_TTL_MS,
        renew_every_ms: int = c.LOCK_RENEW_EVERY_MS,
    ) -> None:
        self.db = db
        self.clock = clock
        self.user_id = user_id
        self.key = c.lock_key(user_id)
        self.ttl_ms = ttl_ms
        self.renew_every_ms = renew_every_ms
        self.token: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost = False

    def acquire(self, *, heartbeat: bool = True) -> bool:
        now = self.clock.now_ms()
        token = make_token(self.key, now)
        if not self.db.write_with_retry(
            lambda s: try_acquire(s, self.key, token, now, self.ttl_ms, self.user_id)
        ):
            return False
        self.token = token
        self.lost = False
        if heartbeat:
            self._stop.clear()
            self._thread = threading.Thread(target=self._beat, name=f"lock:{self.key}", daemon=True)
            self._thread.start()
        return True

    def renew(self) -> bool:
        """Push the expiry out by one TTL; False (and `lost`) when another run holds the key now."""
        if self.token is None:
            return False
        now = self.clock.now_ms()
        token = self.token

        def work(session: Session) -> bool:
            result = session.execute(
                update(LockRow)
                .where(LockRow.key == self.key, LockRow.token == token, LockRow.expires_at > now)
                .values(expires_at=now + self.ttl_ms)
            )
            return result.rowcount == 1

        ok = self.db.write_with_retry(work)
        if not ok:
            self.lost = True
        return ok

    def check(self, session: Session) -> None:
        """Inside a write transaction: raise LockLost unless this lease still holds the key."""
        if self.token is None or not holds(session, self.key, self.token, self.clock.now_ms()):
            self.lost = True
            raise LockLost(
                f"the forgetting lock {self.key} was lost (expired and taken over)",
                hint="another run is working on this user; this run stopped without writing more",
            )

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self.token is None:
            return
        token, self.token = self.token, None
        self.db.write_with_retry(
            lambda s: s.execute(delete(LockRow).where(LockRow.key == self.key, LockRow.token == token))
        )

    def _beat(self) -> None:
        while not self._stop.wait(self.renew_every_ms / 1000):
            try:
                if not self.renew():
                    log.warning("forgetting lock %s lost; the run will stop at its next group", self.key)
                    return
            except Exception:  # a busy database must not kill the heartbeat; retry next beat
                log.exception("could not renew forgetting lock %s", self.key)

    def __enter__(self) -> UserLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def current(db: Database, user_id: str) -> LockState | None:
    key = c.lock_key(user_id)
    with db.read() as session:
        row = session.get(LockRow, key)
        return None if row is None else LockState(row.key, row.token, row.acquired_at, row.expires_at)
