"""FastAPI dependencies shared by the routers: the services container and the documented auth scheme."""

from __future__ import annotations

from fastapi import Request
from fastapi.security import HTTPBearer

from app.bootstrap import Services

# Declares the bearer scheme in the OpenAPI schema (Swagger's "Authorize" button, schemathesis).
# The check itself is done by app.api.security.LocalGuard, which also covers /mcp.
bearer_scheme = HTTPBearer(auto_error=False, description="the token printed by `strata token`")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services
