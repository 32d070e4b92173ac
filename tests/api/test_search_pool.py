"""Search worker processes behind `strata serve`: real HTTP on 127.0.0.1, a real second process.

One worker is started for the whole module (it loads its own services, ~2-5 s) and the tests
use it in order: the same JSON bytes as the in-process server, access counts recorded by the
server, read-your-writes after a write, a dead worker, idle stop.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.api import search_worker
from app.api.app import create_app
from app.api.schemas import SearchIn
from app.api.search_pool import SearchPool
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer
from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import RawMessageRow
from tests.conftest import NOW_MS, make_message

TOPICS = (
    "hiking trip with my sister",
    "press kit for the launch",
    "invoice from the plumber",
    "pasta recipe",
)
QUERIES = (
    "hiking",
    "press kit",
    "plumber invoice last week",
    "what did anna say about pasta",
    "trip sister",
    "nothing like this at all zebra",
)


@dataclass
class Served:
    services: Services
    pool: SearchPool
    workers_url: str
    plain_url: str
    headers: dict[str, str]


def _wait(condition, timeout: float = 90.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data_dir: Path = tmp_path_factory.mktemp("pool") / "data"
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    services.memory.ingest(
        make_message(
            n,
            content=f"{TOPICS[n % len(TOPICS)]} note {n}",
            person=("anna", "ben", "carl")[n % 3],
            channel=("general", "family")[n % 2],
            timestamp=NOW_MS - (n + 1) * 3_600_000,
        )
        for n in range(60)
    )
    token = load_or_create_token(services.layout.token_file)
    with_workers = create_app(services, search_workers=1)
    plain = create_app(services)  # the same services, every search in-process
    pool = with_workers.state.search_pool
    assert isinstance(pool, SearchPool)
    with BackgroundServer(with_workers) as a, BackgroundServer(plain) as b:
        headers = {"Authorization": f"Bearer {token}"}
        # Two searches at once are load: the second starts the worker.
        _concurrent(a.url, headers, 4)
        _wait(lambda: pool.stats().ready == 1)
        yield Served(services, pool, a.url, b.url, headers)
    services.close()


def _concurrent(url: str, headers: dict[str, str], n: int) -> None:
    def one(i: int) -> None:
        httpx.get(f"{url}/api/search", params={"q": f"hiking {i}"}, headers=headers, timeout=60)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_worker_answers_with_the_same_json_bytes_as_the_server(served: Served) -> None:
    before = served.pool.stats().in_worker
    with httpx.Client(headers=served.headers, timeout=60) as http:
        for query in QUERIES:
            for params in (
                {"q": query},
                {"q": query, "limit": 3, "person": "anna"},
                {"q": query, "loose": True},
            ):
                from_worker = http.get(f"{served.workers_url}/api/search", params=params)
                in_process = http.get(f"{served.plain_url}/api/search", params=params)
                assert from_worker.status_code == in_process.status_code == 200
                assert from_worker.content == in_process.content
                assert from_worker.headers["content-type"] == in_process.headers["content-type"]
            body = {"query": query, "limit": 5, "insights": True, "documents": True}
            posted = http.post(f"{served.workers_url}/api/search", json=body)
            assert posted.content == http.post(f"{served.plain_url}/api/search", json=body).content
    # Every one of those went to the worker (nothing else was running, no write meanwhile).
    assert served.pool.stats().in_worker - before == len(QUERIES) * 4


def test_bad_input_gets_the_same_error_as_without_workers(served: Served) -> None:
    with httpx.Client(headers=served.headers, timeout=60) as http:
        for params in ({"q": "hiking", "reveal": True}, {"q": "hiking", "limt": 5}, {"q": ""}):
            a = http.get(f"{served.workers_url}/api/search", params=params)
            b = http.get(f"{served.plain_url}/api/search", params=params)
            assert a.status_code == b.status_code and a.status_code in (400, 422)
            assert a.json() == b.json()


def test_the_server_counts_the_accesses_of_a_worker_search(served: Served) -> None:
    before = served.pool.stats().in_worker
    hits = httpx.get(
        f"{served.workers_url}/api/search",
        params={"q": "plumber invoice"},
        headers=served.headers,
        timeout=60,
    ).json()["hits"]
    assert served.pool.stats().in_worker == before + 1 and hits
    ids = [int(h["id"]) for h in hits]
    served.services.access.flush()
    with served.services.db.read() as session:
        counts = session.execute(
            select(RawMessageRow.access_count).where(RawMessageRow.id.in_(ids))
        ).scalars()
        assert all(c >= 1 for c in counts)


def test_a_search_right_after_a_write_finds_it(served: Served) -> None:
    with httpx.Client(headers=served.headers, timeout=60) as http:
        message = {
            "platform": "note",
            "message_id": "quokka-1",
            "channel": "notes",
            "person": "me",
            "timestamp": NOW_MS,
            "content": "the quokka photo is on the blue drive",
        }
        stored = http.post(f"{served.workers_url}/api/messages", json={"messages": [message]})
        assert stored.status_code in (200, 201), stored.text
        in_process = served.pool.stats().in_process
        hits = http.get(f"{served.workers_url}/api/search", params={"q": "quokka photo"}).json()["hits"]
    assert any("quokka" in h["content"] for h in hits)
    assert served.pool.stats().in_process == in_process + 1  # the worker's copy may lag: not asked


def test_a_dead_worker_is_replaced_by_the_server_and_an_idle_one_stops(served: Served) -> None:
    time.sleep(2.1)  # past the fresh-write window of the previous test
    (pid,) = served.pool.pids()
    os.kill(pid, signal.SIGKILL)
    response = httpx.get(
        f"{served.workers_url}/api/search", params={"q": "hiking"}, headers=served.headers, timeout=60
    )
    assert response.status_code == 200 and response.json()["hits"]
    _wait(lambda: served.pool.stats().workers == 0, timeout=10)
    # The server reaps it: no zombie is left behind (the test itself never waits for it).
    _wait(lambda: _gone(pid), timeout=10)
    # Load starts a new one; nobody uses it for the idle time: it stops, its process exits.
    served.pool.idle_seconds, served.pool.reap_every = 0.5, 0.2
    _concurrent(served.workers_url, served.headers, 4)
    _wait(lambda: served.pool.stats().ready == 1 or served.pool.stats().workers == 0)
    pids = served.pool.pids()
    _wait(lambda: served.pool.stats().workers == 0, timeout=30)
    for pid in pids:
        _wait(lambda pid=pid: _gone(pid), timeout=10)


def test_a_worker_that_does_not_exit_when_stopped_is_killed_and_reaped(served: Served) -> None:
    """soak3 once saw two zero-memory children of `serve` after its workers stopped: processes
    nobody waited for. A worker frozen here (SIGSTOP: it cannot read the stop, and SIGTERM waits
    until it runs again) stands for one too slow to exit on a loaded machine."""
    served.pool.idle_seconds, served.pool.reap_every, served.pool.stop_seconds = 0.5, 0.2, 0.3
    _concurrent(served.workers_url, served.headers, 4)
    _wait(lambda: served.pool.stats().ready == 1)
    (pid,) = served.pool.pids()
    os.kill(pid, signal.SIGSTOP)
    _wait(lambda: served.pool.stats().workers == 0, timeout=10)  # idle: told to stop
    _wait(lambda: _gone(pid), timeout=15)


def _gone(pid: int) -> bool:
    """Exited and reaped by its parent, the server (a zombie still has its /proc entry, state Z)."""
    return not Path(f"/proc/{pid}").exists()


def test_a_worker_with_another_model_than_the_server_asks_to_retire(services: Services) -> None:
    # After a re-embed switched the server's model, an older worker must not answer.
    accesses = search_worker._Accesses()
    job = search_worker.SearchJob(SearchIn(query="hiking"), NOW_MS, model_id="some-other-model")
    answer = search_worker._answer(services, FixedClock(0), accesses, job)
    assert isinstance(answer, search_worker.SearchFailed) and answer.retire
    same = search_worker.SearchJob(SearchIn(query="hiking"), NOW_MS, model_id=services.embedder.model_id)
    assert isinstance(
        search_worker._answer(services, FixedClock(0), accesses, same), search_worker.SearchDone
    )
