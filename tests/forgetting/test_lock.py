"""The per-user lock: CAS, expiry takeover, renewal, loss detection, and two real processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from app.core.clock import FixedClock, SystemClock
from app.core.storage.db import Database
from app.core.storage.migrate import migrate
from forgetting import constants as c
from forgetting.lock import LockLost, UserLock, current
from tests.conftest import PROJECT_ROOT
from tests.forgetting.conftest import seed_group
from tests.forgetting.factory import NOW


@pytest.fixture
def db(tmp_path: Path):
    database = Database(tmp_path / "strata.db")
    migrate(database)
    yield database
    database.dispose()


def test_key_ttl_and_token_format(db) -> None:
    clock = FixedClock(NOW)
    lock = UserLock(db, clock, "u1")
    assert lock.acquire(heartbeat=False)
    state = current(db, "u1")
    assert state.key == "memory_forgetting:u1"
    assert state.expires_at - state.acquired_at == c.LOCK_TTL_MS == 60_000
    key, stamp, rand = state.token.rsplit(":", 2)
    assert key == "memory_forgetting:u1" and int(stamp) == NOW and len(rand) == 16
    lock.release()
    assert current(db, "u1") is None


def test_second_holder_refused_until_expiry_then_takes_over(db) -> None:
    clock = FixedClock(NOW)
    first, second = UserLock(db, clock, "u1"), UserLock(db, clock, "u1")
    assert first.acquire(heartbeat=False)
    assert not second.acquire(heartbeat=False)
    assert UserLock(db, clock, "other-user").acquire(heartbeat=False)  # per user
    clock.advance(c.LOCK_TTL_MS - 1)
    assert not second.acquire(heartbeat=False)
    clock.advance(1)  # expires_at == now: expired
    assert second.acquire(heartbeat=False)
    # The old owner finds out: renew fails, and its next group transaction refuses to commit.
    assert not first.renew() and first.lost
    with pytest.raises(LockLost), db.write() as session:
        first.check(session)
    first.release()  # must not delete the new owner's lock
    assert current(db, "u1").token == second.token


def test_renew_extends_expiry(db) -> None:
    clock = FixedClock(NOW)
    lock = UserLock(db, clock, "u1")
    lock.acquire(heartbeat=False)
    clock.advance(50_000)
    assert lock.renew()
    assert current(db, "u1").expires_at == NOW + 50_000 + c.LOCK_TTL_MS
    clock.advance(59_999)
    assert not UserLock(db, clock, "u1").acquire(heartbeat=False)


def test_heartbeat_thread_renews(db) -> None:
    lock = UserLock(db, SystemClock(), "u1", ttl_ms=600, renew_every_ms=100)
    assert lock.acquire()
    try:
        time.sleep(1.2)  # two TTLs: without the heartbeat the lease would have expired
        assert not UserLock(db, SystemClock(), "u1", ttl_ms=600).acquire(heartbeat=False)
        assert not lock.lost
    finally:
        lock.release()


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from app.core.clock import SystemClock
    from app.core.storage.db import Database
    from forgetting.lock import UserLock
    db = Database(Path(sys.argv[1]))
    lock = UserLock(db, SystemClock(), "local")
    print("acquired" if lock.acquire() else "refused", flush=True)
    time.sleep(float(sys.argv[2]))
    lock.release()
    print("released", flush=True)
    """
)


def test_lock_holds_across_processes(db) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db.path), "3"], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "acquired"
        mine = UserLock(db, SystemClock(), "local")
        assert not mine.acquire(heartbeat=False)
        assert proc.stdout.readline().strip() == "released"
        assert mine.acquire(heartbeat=False)
        mine.release()
    finally:
        proc.wait(timeout=30)


RUNNER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from app.bootstrap import build_services
    from app.core.clock import FixedClock
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.settings import EmbeddingSettings, Settings
    settings = Settings(data_dir=Path(sys.argv[1]), embedding=EmbeddingSettings(provider="hashing"))
    clock = FixedClock(int(sys.argv[2]))
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder(), repair=False)
    svc.forgetting.runner.before_group = lambda group: time.sleep(0.6)
    Path(sys.argv[3]).touch()
    while not Path(sys.argv[4]).exists():
        time.sleep(0.01)
    report = svc.forgetting.run(trigger="test")
    print(json.dumps(report.to_dict()), flush=True)
    svc.close()
    """
)


def test_two_concurrent_runs_one_skips_locked(services, tmp_path: Path) -> None:
    for day in (10, 11, 12):
        seed_group(services, day=day)
    services.close()
    go = tmp_path / "go"
    procs = []
    for name in ("a", "b"):
        ready = tmp_path / f"ready-{name}"
        procs.append(
            (
                ready,
                subprocess.Popen(
                    [
                        sys.executable,
                        "-c",
                        RUNNER,
                        str(services.settings.data_dir),
                        str(NOW),
                        str(ready),
                        str(go),
                    ],
                    cwd=PROJECT_ROOT,
                    stdout=subprocess.PIPE,
                    text=True,
                ),
            )
        )
    deadline = time.time() + 120
    while not all(ready.exists() for ready, _ in procs):
        assert time.time() < deadline, "runners did not start"
        time.sleep(0.05)
    go.touch()
    reports = [json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1]) for _, p in procs]
    assert sorted(r["status"] for r in reports) == ["completed", "skipped_locked"]
    done = next(r for r in reports if r["status"] == "completed")
    assert done["totals"]["summarized"] == 3
