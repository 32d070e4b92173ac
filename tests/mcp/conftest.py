"""The MCP tests share the API tests' fixtures (demo-loaded services, asyncio backend)."""

from tests.api.conftest import anyio_backend, services  # noqa: F401
