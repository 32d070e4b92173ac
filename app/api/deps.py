"""FastAPI dependencies shared by the routers: the services container and the documented auth scheme."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPBearer

from app.bootstrap import Services

# Declares the bearer scheme in the OpenAPI schema (Swagger's "Authorize" button, schemathesis).
# The check itself is done by app.api.security.LocalGuard, which also covers /mcp.
bearer_scheme = HTTPBearer(auto_error=False, description="the token printed by `strata token`")


# Async because it does no I/O: FastAPI runs a sync dependency on a thread of its pool, a
# thread hand-off (and back) per request for nothing.
async def reject_unknown_query(request: Request) -> None:
    """A query parameter the route does not declare is a mistake (`?limt=5`, `?dry_run=1`) that
    would otherwise be ignored silently: answer 422 naming it."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if dependant is None or not request.query_params:
        return
    unknown = sorted(set(request.query_params) - _query_names(dependant))
    if unknown:
        raise RequestValidationError(
            [
                {"loc": ("query", n), "msg": "unknown query parameter", "type": "extra_forbidden"}
                for n in unknown
            ]
        )


def _query_names(dependant: Any) -> set[str]:
    names = {param.alias for param in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


async def services_of(request: Request) -> Services:
    """`get_services` as an async dependency (no thread hand-off): for the hot routes."""
    return get_services(request)
