"""Admission control: a flooded real server answers 503 + Retry-After; normal load sees none."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from app.api.admission import AdmissionGate, GateLimits
from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer
from app.bootstrap import Services


def _serve(services: Services, **api: object) -> tuple[BackgroundServer, dict[str, str]]:
    for name, value in api.items():
        setattr(services.settings.api, name, value)
    token = load_or_create_token(services.layout.token_file)
    return BackgroundServer(create_app(services)), {"Authorization": f"Bearer {token}"}


async def _flood(url: str, headers: dict[str, str], clients: int, rounds: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:

        async def one(i: int) -> httpx.Response:
            return await http.get("/api/search", params={"q": f"press kit {i}", "limit": 5})

        out: list[httpx.Response] = []
        for r in range(rounds):
            out += await asyncio.gather(*(one(r * clients + i) for i in range(clients)))
        return out


def test_a_flood_gets_503_with_retry_after_and_health_still_answers(services):
    # One request runs, none may wait: everything that arrives meanwhile is refused at once.
    server, headers = _serve(services, max_concurrent_requests=1, max_queued_requests=0)
    with server:
        responses = asyncio.run(_flood(server.url, headers, clients=40, rounds=2))
        with httpx.Client(base_url=server.url, timeout=30) as http:
            assert http.get("/api/health").status_code == 200
            # The flood is over: the next request is served.
            assert http.get("/api/search", params={"q": "press kit"}, headers=headers).status_code == 200
    codes = [r.status_code for r in responses]
    assert set(codes) <= {200, 503} and 200 in codes and 503 in codes
    refused = next(r for r in responses if r.status_code == 503)
    assert 1 <= int(refused.headers["Retry-After"]) <= 30
    body = refused.json()
    assert body["error"] == "overloaded" and "api.max_concurrent_requests" in body["hint"]


def test_normal_load_waits_in_the_queue_and_sees_no_503(services):
    server, headers = _serve(services, max_concurrent_requests=2, max_queued_requests=64)
    with server:
        responses = asyncio.run(_flood(server.url, headers, clients=20, rounds=2))
    assert [r.status_code for r in responses] == [200] * 40


def test_a_wait_longer_than_the_limit_is_refused(services):
    server, headers = _serve(
        services, max_concurrent_requests=1, max_queued_requests=64, max_queue_wait_seconds=0.001
    )
    with server:
        responses = asyncio.run(_flood(server.url, headers, clients=30, rounds=1))
    codes = [r.status_code for r in responses]
    assert 200 in codes and 503 in codes


# -- the gate's own bookkeeping, on a tiny ASGI app whose requests finish when the test says ---------
class _HeldApp:
    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = 0

    async def __call__(self, scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        self.entered += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _call(gate: AdmissionGate, path: str = "/api/search") -> int:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    await gate({"type": "http", "path": path, "method": "GET", "headers": []}, receive, send)
    return int(sent[0]["status"])


@pytest.mark.anyio
async def test_slots_pass_in_arrival_order_and_none_leak():
    held = _HeldApp()
    gate = AdmissionGate(held, limits=GateLimits(max_concurrent=2, max_queued=3, max_wait_seconds=5))
    tasks = [asyncio.create_task(_call(gate)) for _ in range(6)]
    await asyncio.sleep(0.05)
    stats = gate.stats()
    assert (held.entered, stats.running, stats.queued, stats.rejected) == (2, 2, 3, 1)
    health = asyncio.create_task(_call(gate, "/api/health"))
    await asyncio.sleep(0.02)
    assert held.entered == 3  # liveness passes a full gate
    held.release.set()
    assert await health == 200
    codes = await asyncio.gather(*tasks)
    assert sorted(codes) == [200] * 5 + [503]
    after = gate.stats()
    assert (after.running, after.queued, after.admitted, after.rejected) == (0, 0, 5, 1)


@pytest.mark.anyio
async def test_a_cancelled_waiter_gives_its_place_back():
    held = _HeldApp()
    gate = AdmissionGate(held, limits=GateLimits(max_concurrent=1, max_queued=2, max_wait_seconds=5))
    first = asyncio.create_task(_call(gate))
    waiting = asyncio.create_task(_call(gate))
    await asyncio.sleep(0.02)
    waiting.cancel()  # the client went away while queued
    await asyncio.sleep(0.02)
    assert gate.stats().queued == 0
    held.release.set()
    assert await first == 200
    assert await _call(gate) == 200
    assert gate.stats().running == 0


def test_limits_are_checked():
    with pytest.raises(ValueError):
        GateLimits(max_concurrent=0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_queue_hook_hears_when_each_parked_request_leaves():
    # The search pool queues a parked search's text for a batch; what the hook returns must run
    # once the request stops waiting, whether admitted, refused after its wait, or cancelled.
    held = _HeldApp()
    parked: list[int] = []
    left: list[int] = []

    def on_queue(scope) -> object:  # type: ignore[no-untyped-def]
        number = len(parked)
        parked.append(number)
        return lambda: left.append(number)

    gate = AdmissionGate(
        held, limits=GateLimits(max_concurrent=1, max_queued=4, max_wait_seconds=0.3), on_queue=on_queue
    )
    first = asyncio.create_task(_call(gate))
    await asyncio.sleep(0.02)
    refused = asyncio.create_task(_call(gate))  # waits 0.3 s, then 503
    cancelled = asyncio.create_task(_call(gate))
    await asyncio.sleep(0.02)
    assert parked == [0, 1] and left == []
    cancelled.cancel()
    await asyncio.sleep(0.02)
    assert left == [1]
    assert await refused == 503
    assert left == [1, 0]
    admitted = asyncio.create_task(_call(gate))
    await asyncio.sleep(0.02)
    assert parked == [0, 1, 2] and left == [1, 0]
    held.release.set()
    assert await first == 200 and await admitted == 200
    assert left == [1, 0, 2]
