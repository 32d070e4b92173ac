"""Every Strata error type maps to an HTTP status and a stable JSON `error` code."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from app.api.errors import STATUS_BY_TYPE, install_error_handlers, status_for
from app.core import errors as e


def _all_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_all_subclasses(sub)}
    return found


def test_every_error_in_the_tree_has_an_explicit_status():
    core_errors = {c for c in _all_subclasses(e.StrataError) if c.__module__ == e.__name__}
    missing = sorted(c.__name__ for c in core_errors - set(STATUS_BY_TYPE))
    assert not missing, f"add these to app/api/errors.py STATUS_BY_TYPE: {missing}"


def test_unknown_subclass_inherits_its_parents_status():
    class FeatureNotFound(e.NotFound):
        code = "feature_not_found"

    assert status_for(FeatureNotFound("x")) == 404


class Body(BaseModel):
    n: int


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/not-found")
    def not_found():
        raise e.NotFound("message 7 does not exist", hint="search first")

    @app.get("/rate")
    def rate():
        raise e.ConnectorRateLimited("slow down", retry_after=2.4)

    @app.get("/bug")
    def bug():
        raise RuntimeError("secret internals")

    @app.post("/body")
    def body(payload: Body):
        return payload

    return app


async def _call(method: str, path: str, **kwargs) -> httpx.Response:
    transport = httpx.ASGITransport(app=_app(), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.request(method, path, **kwargs)


@pytest.mark.anyio
async def test_error_bodies():
    r = await _call("GET", "/not-found")
    assert r.status_code == 404
    assert r.json() == {"error": "not_found", "message": "message 7 does not exist", "hint": "search first"}

    r = await _call("GET", "/rate")
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    assert r.json()["error"] == "connector_rate_limited"

    r = await _call("GET", "/bug")
    assert r.status_code == 500 and r.json()["error"] == "internal_error"
    assert "secret" not in r.text

    r = await _call("POST", "/body", json={"n": "x"})
    assert r.status_code == 422 and r.json()["error"] == "validation_error" and "n:" in r.json()["message"]

    r = await _call("GET", "/nowhere")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = await _call("DELETE", "/rate")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"
