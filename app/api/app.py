"""The FastAPI app factory: REST routers under /api, the MCP server at /mcp, one guard in front.

Extension point: a feature adds `app/api/routes/<feature>.py` exporting `router` (paths relative
to /api, sync handlers calling app.services) and one line to ROUTERS below; docs/api.md lists
every route (a test checks it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Security

from app import __version__
from app.api.admission import AdmissionGate, GateLimits
from app.api.deps import bearer_scheme, reject_unknown_query
from app.api.errors import install_error_handlers
from app.api.query_batch import query_batcher
from app.api.routes import (
    backup,
    brief,
    connectors,
    deletion,
    files,
    forgetting,
    health,
    importing,
    index,
    insights,
    kb,
    messages,
    privacy,
    search,
    stats,
)
from app.api.schemas import ERROR_RESPONSES
from app.api.search_pool import SearchPool
from app.api.security import HostPolicy, LocalGuard, load_or_create_token
from app.bootstrap import Services
from app.mcp.server import build_mcp_server, http_app

API_PREFIX = "/api"

# One line per feature router.
ROUTERS = (
    messages.router,
    search.router,
    stats.router,
    index.router,
    insights.router,
    connectors.router,
    forgetting.router,
    kb.router,
    importing.router,
    deletion.router,
    backup.router,
    brief.router,
    files.router,
    privacy.router,
)

DESCRIPTION = (
    "Local REST API of Strata, your personal memory. Every route except `/api/health` needs "
    "`Authorization: Bearer <token>` (print it with `strata token`). The MCP server is at `/mcp`."
)


def create_app(
    services: Services,
    *,
    policy: HostPolicy | None = None,
    token: str | None = None,
    search_workers: int = 0,
) -> FastAPI:
    """Build the app for `services`. `policy` defaults to the configured bind host's policy;
    `search_workers` > 0 lets searches run in up to that many worker processes under load
    (`strata serve` passes `api.search_workers`; hosts that share their process keep 0)."""
    settings = services.settings
    token = token or load_or_create_token(settings.layout.token_file)
    policy = policy or HostPolicy.for_bind(settings.api.host)

    mcp_server = build_mcp_server(services)
    mcp_app = http_app(
        mcp_server,
        allowed_hosts=None if policy.any_host else policy.mcp_allowed_hosts(),
        allowed_origins=policy.mcp_allowed_origins(),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # The MCP session manager owns a task group for HTTP sessions; it lives as long as the app.
        async with mcp_server.session_manager.run():
            try:
                yield
            finally:
                if pool is not None:
                    await pool.close()

    app = FastAPI(
        title="Strata",
        version=__version__,
        description=DESCRIPTION,
        docs_url=f"{API_PREFIX}/docs",
        openapi_url=f"{API_PREFIX}/openapi.json",
        redoc_url=None,
        lifespan=lifespan,
    )
    pool = (
        SearchPool(
            settings,
            workers=search_workers,
            idle_seconds=settings.api.search_worker_idle_seconds,
            record_access=services.access.record,
            now_ms=services.clock.now_ms,
            model_id=lambda: services.embedder.model_id,
            events=services.events,
            batcher=query_batcher(services) if settings.api.search_query_batch else None,
            search_texts=services.memory.query_texts,
        )
        if search_workers > 0
        else None
    )
    app.state.services = services
    app.state.search_pool = pool
    app.state.mcp_server = mcp_server
    install_error_handlers(app)
    app.include_router(health.router, prefix=API_PREFIX)
    for router in ROUTERS:
        app.include_router(
            router,
            prefix=API_PREFIX,
            dependencies=[Security(bearer_scheme), Depends(reject_unknown_query)],
            responses=ERROR_RESPONSES,
        )
    # The MCP app's single route (/mcp) joins our router directly, so `/mcp` needs no redirect.
    app.router.routes.extend(mcp_app.routes)
    # Multipart framing adds a little to the file itself.
    upload_limit = settings.kb.max_file_bytes + 1024 * 1024
    # Added first, so it sits inside the guard: requests without a valid token never take a slot.
    gate_limits = GateLimits(
        max_concurrent=settings.api.max_concurrent_requests,
        max_queued=settings.api.max_queued_requests,
        max_wait_seconds=settings.api.max_queue_wait_seconds,
    )
    app.add_middleware(
        AdmissionGate, limits=gate_limits, on_queue=pool.queued_request if pool is not None else None
    )
    app.add_middleware(
        LocalGuard,
        token=token,
        policy=policy,
        max_body_bytes=settings.api.max_body_bytes,
        upload_limits={f"{API_PREFIX}/kb/documents": upload_limit, f"{API_PREFIX}/import": upload_limit},
    )
    return app
