"""Token file, constant-time check, host policy and the LocalGuard middleware on a bare ASGI app."""

from __future__ import annotations

import stat

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.api.security import HostPolicy, LocalGuard, load_or_create_token, token_matches
from app.core.errors import ConfigError

TOKEN = "t" * 43


def test_token_is_generated_once_private_and_long(tmp_path):
    path = tmp_path / "data" / "api-token"
    token = load_or_create_token(path)
    assert len(token) >= 43  # 32 random bytes, url-safe base64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(path) == token


def test_token_file_permissions_are_tightened(tmp_path):
    path = tmp_path / "api-token"
    path.write_text(TOKEN)
    path.chmod(0o644)
    assert load_or_create_token(path) == TOKEN
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_truncated_token_file_is_a_clear_error(tmp_path):
    path = tmp_path / "api-token"
    path.write_text("short")
    with pytest.raises(ConfigError, match="too short"):
        load_or_create_token(path)


def test_token_matches():
    assert token_matches(TOKEN, TOKEN)
    assert not token_matches(TOKEN[:-1] + "x", TOKEN)
    assert not token_matches(None, TOKEN)
    assert not token_matches("", TOKEN)


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1:3415", True),
        ("localhost", True),
        ("LOCALHOST:80", True),
        ("[::1]:3415", True),
        ("evil.example:3415", False),
        ("127.0.0.1.evil.example", False),
        (None, False),
    ],
)
def test_loopback_host_policy(host, ok):
    assert HostPolicy.loopback().host_allowed(host) is ok


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        (None, True),
        ("http://127.0.0.1:5173", True),
        ("http://localhost", True),
        ("https://evil.example", False),
        ("http://localhost.evil.example", False),
        ("null", False),
        ("file://", False),
    ],
)
def test_origin_policy(origin, ok):
    assert HostPolicy.loopback().origin_allowed(origin) is ok


def test_remote_bind_policy_adds_the_bind_host_or_any():
    lan = HostPolicy.for_bind("192.168.1.5")
    assert lan.host_allowed("192.168.1.5:3415") and not lan.host_allowed("evil.example")
    assert HostPolicy.for_bind("127.0.0.2").host_allowed("127.0.0.2:3415")
    assert not HostPolicy.for_bind("127.0.0.1").host_allowed("127.0.0.2:3415")
    assert HostPolicy.for_bind("::1").host_allowed("[::1]:3415")
    assert HostPolicy.for_bind("0.0.0.0").host_allowed("anything.example")
    assert not HostPolicy.for_bind("0.0.0.0").origin_allowed("http://evil.example")


def _guarded(max_body: int = 100) -> httpx.AsyncClient:
    async def echo(request):
        body = await request.body()
        return PlainTextResponse(f"{request.url.path}:{len(body)}")

    inner = Starlette(routes=[Route("/api/health", echo), Route("/api/x", echo, methods=["GET", "POST"])])
    app = LocalGuard(inner, token=TOKEN, policy=HostPolicy.loopback(), max_body_bytes=max_body)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:3415")


AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def _status(method: str, path: str, **kwargs) -> tuple[int, dict | str]:
    async with _guarded() as client:
        response = await client.request(method, path, **kwargs)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


@pytest.mark.anyio
async def test_guard_order_and_codes():
    assert await _status("GET", "/api/health") == (200, "/api/health:0")
    status, body = await _status("GET", "/api/x")
    assert status == 401 and body["error"] == "unauthorized" and "strata token" in body["hint"]
    assert (await _status("GET", "/api/x", headers={"Authorization": "Bearer wrong"}))[0] == 401
    assert (await _status("GET", "/api/x", headers={"Authorization": f"Basic {TOKEN}"}))[0] == 401
    assert await _status("GET", "/api/x", headers=AUTH) == (200, "/api/x:0")
    # Host beats everything, even on the open route and with a valid token.
    status, body = await _status("GET", "/api/health", headers={"Host": "evil.example"})
    assert status == 421 and body["error"] == "misdirected_request"
    status, body = await _status("GET", "/api/x", headers={**AUTH, "Origin": "https://evil.example"})
    assert status == 403 and body["error"] == "forbidden_origin"


@pytest.mark.anyio
async def test_guard_limits_body_size_declared_and_streamed():
    assert await _status("POST", "/api/x", headers=AUTH, content=b"x" * 100) == (200, "/api/x:100")
    status, body = await _status("POST", "/api/x", headers=AUTH, content=b"x" * 101)
    assert status == 413 and body["error"] == "payload_too_large"

    async def chunks():
        for _ in range(5):
            yield b"x" * 30

    status, body = await _status("POST", "/api/x", headers=AUTH, content=chunks())
    assert status == 413
