"""Local-only guard: bearer token file, Host/Origin checks against DNS rebinding, body-size limit.

The guard is one pure ASGI middleware wrapping the whole app, so it also protects the MCP
endpoint mounted at `/mcp` (which is not a FastAPI route and sees no FastAPI dependencies).
Order of checks: Host (421) → Origin (403) → token (401) → body size (413).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import ConfigError
from app.core.storage import faults

TOKEN_BYTES = 32
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
# Routes a browser or a health probe must reach without the token. The OpenAPI schema and its
# viewer describe the API and hold no user data.
OPEN_PATHS = frozenset({"/api/health", "/api/docs", "/api/docs/oauth2-redirect", "/api/openapi.json"})
# The scope key under which an API call's whole body (read here before the app runs; not an
# upload's) is left for the admission gate's hook: a POST search parked there is batched too.
BODY_KEY = "strata.body"


# --- token file -------------------------------------------------------------------------------


def load_or_create_token(path: Path) -> str:
    """The API token stored at `path`, generated (≥ 32 random bytes, mode 0600) on first use."""
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if len(token) < 32:
            raise ConfigError(
                f"API token file {path} is empty or too short",
                hint="delete it; a new token is generated on the next start",
            )
        _tighten(path)
        return token
    token = secrets.token_urlsafe(TOKEN_BYTES)
    # O_EXCL: when two processes start at once, exactly one writes; the other reads its token.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_or_create_token(path)
    except OSError as exc:  # a full disk or read-only data dir: say so instead of a traceback
        raise faults.from_os_error(exc, path) or faults.unusable(exc, path) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
    except OSError as exc:
        path.unlink(missing_ok=True)  # never leave a half-written token behind
        raise faults.from_os_error(exc, path) or faults.unusable(exc, path) from exc
    return token


def _tighten(path: Path) -> None:
    # A token readable by other local users would let them read the whole memory.
    try:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:
        pass


def token_matches(presented: str | None, expected: str) -> bool:
    """Constant-time comparison, so response timing does not leak the token prefix."""
    if not presented:
        return False
    return hmac.compare_digest(presented.encode("utf-8"), expected.encode("utf-8"))


def bearer_token(headers: Headers) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, credentials = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return credentials.strip() or None


# --- host / origin ----------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """Which Host names (any port) and browser origins may talk to the server."""

    hosts: frozenset[str]
    origins: frozenset[str]
    any_host: bool = False  # only with --allow-remote on a wildcard bind address

    @classmethod
    def loopback(cls, extra_hosts: Iterable[str] = ()) -> HostPolicy:
        hosts = frozenset({"127.0.0.1", "localhost", "[::1]", *extra_hosts})
        return cls(hosts=hosts, origins=frozenset(f"http://{h}" for h in hosts))

    @classmethod
    def for_bind(cls, host: str) -> HostPolicy:
        """Loopback names always, plus the bind address when it is another one."""
        if host in ("0.0.0.0", "::", ""):
            base = cls.loopback()
            return cls(hosts=base.hosts, origins=base.origins, any_host=True)
        # Clients address the server by the bind address itself (127.0.0.2, a LAN IP, ...).
        return cls.loopback(() if host in LOOPBACK_NAMES else (_bracket(host),))

    def host_allowed(self, host_header: str | None) -> bool:
        if not host_header:
            return False
        if self.any_host:
            return True
        return _strip_port(host_header.lower()) in self.hosts

    def origin_allowed(self, origin: str | None) -> bool:
        # Non-browser clients (curl, MCP SDK) send no Origin; browsers always do cross-site.
        if origin is None:
            return True
        origin = origin.lower().rstrip("/")
        scheme, sep, rest = origin.partition("://")
        if not sep or scheme not in ("http", "https"):
            return False
        return f"http://{_strip_port(rest)}" in self.origins

    def mcp_allowed_hosts(self) -> list[str]:
        """The same policy in the MCP SDK's TransportSecuritySettings pattern syntax."""
        return [pattern for h in sorted(self.hosts) for pattern in (h, f"{h}:*")]

    def mcp_allowed_origins(self) -> list[str]:
        return [pattern for o in sorted(self.origins) for pattern in (o, f"{o}:*")]


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _strip_port(hostport: str) -> str:
    if hostport.startswith("["):
        end = hostport.find("]")
        return hostport[: end + 1] if end != -1 else hostport
    return hostport.split(":", 1)[0]


# --- middleware -------------------------------------------------------------------------------


def error_response(status: int, code: str, message: str, hint: str | None = None) -> JSONResponse:
    body: dict[str, str] = {"error": code, "message": message}
    if hint:
        body["hint"] = hint
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


class LocalGuard:
    """ASGI middleware enforcing the host policy, the token and the request-size limit."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str,
        policy: HostPolicy,
        max_body_bytes: int,
        upload_limits: dict[str, int] | None = None,
    ) -> None:
        self.app = app
        self.token = token
        self.policy = policy
        self.max_body_bytes = max_body_bytes
        # File uploads (documents, chat exports) may be far larger than an API call's body.
        self.upload_limits = upload_limits or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        rejection = self._check(scope, headers)
        if rejection is not None:
            await rejection(scope, receive, send)
            return
        limit = self.upload_limits.get(scope["path"], self.max_body_bytes)
        await self._with_body_limit(scope, receive, send, headers, limit)

    def _check(self, scope: Scope, headers: Headers) -> JSONResponse | None:
        if not self.policy.host_allowed(headers.get("host")):
            return error_response(
                421,
                "misdirected_request",
                f"Host header {headers.get('host')!r} is not allowed",
                "connect through 127.0.0.1 or localhost",
            )
        if not self.policy.origin_allowed(headers.get("origin")):
            return error_response(
                403,
                "forbidden_origin",
                f"Origin {headers.get('origin')!r} may not call this API",
                "only pages served from the local machine may call Strata",
            )
        if scope["path"] in OPEN_PATHS:
            return None
        if not token_matches(bearer_token(headers), self.token):
            return error_response(
                401,
                "unauthorized",
                "missing or wrong bearer token",
                "send 'Authorization: Bearer <token>'; `strata token` prints it",
            )
        return None

    async def _with_body_limit(
        self, scope: Scope, receive: Receive, send: Send, headers: Headers, limit: int
    ) -> None:
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._too_large(limit)(scope, receive, send)
            return
        # Chunked bodies carry no length: buffer up to the limit before the app sees a byte.
        buffered = bytearray()
        replay: deque[Message] = deque()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                replay.append(message)
                break
            buffered.extend(message.get("body", b""))
            if len(buffered) > limit:
                await self._too_large(limit)(scope, receive, send)
                return
            if not message.get("more_body", False):
                body = bytes(buffered)
                replay.append({"type": "http.request", "body": body, "more_body": False})
                if limit == self.max_body_bytes:  # not an upload: small, and read already
                    scope[BODY_KEY] = body
                break

        async def replaying_receive() -> Message:
            if replay:
                return replay.popleft()
            return await receive()

        await self.app(scope, replaying_receive, send)

    def _too_large(self, limit: int) -> JSONResponse:
        return error_response(
            413,
            "payload_too_large",
            f"request body exceeds {limit} bytes",
            "send smaller batches (settings: api.max_body_bytes)",
        )
