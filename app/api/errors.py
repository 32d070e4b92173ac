"""Exceptions → JSON error responses, by type, in one place: `{"error": code, "message": ..., "hint": ...}`.

The `error` code is the exception's stable `code` (app.core.errors); the HTTP status comes from the
nearest class in STATUS_BY_TYPE along the exception's MRO, so a new subclass inherits a status.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse

from app.api.security import error_response
from app.core import errors as e

log = logging.getLogger(__name__)

STATUS_BY_TYPE: dict[type[e.StrataError], int] = {
    e.StrataError: 500,
    # A setting the user must fill in or fix: their request cannot succeed until they do.
    e.ConfigError: 409,
    e.ModelError: 503,
    e.StorageError: 503,
    e.MigrationError: 503,
    e.DiskFull: 503,
    e.StorageLocked: 503,
    e.StorageCorrupt: 503,
    e.DataDirUnusable: 503,
    e.InvalidInput: 400,
    e.PayloadTooLarge: 413,
    e.UnsupportedFormat: 415,
    e.UnreadableDocument: 400,
    e.NotFound: 404,
    e.Conflict: 409,
    # Only a caller holding the cancel token can stop an operation; for HTTP that is the server.
    e.Cancelled: 409,
    e.AuthError: 401,
    e.LLMError: 502,
    # The user's own daily cap, not a fault: retrying today cannot succeed.
    e.LLMCapReached: 429,
    e.LLMAuthFailed: 502,
    e.LLMRateLimited: 429,
    e.LLMUnavailable: 503,
    e.ConnectorError: 502,
    e.ConnectorAuthFailed: 502,
    e.ConnectorRateLimited: 429,
    e.ConnectorUnavailable: 503,
    e.ConnectorNotFound: 404,
}

# Framework-level failures get codes of the same style.
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
}


def status_for(exc: e.StrataError) -> int:
    for cls in type(exc).__mro__:
        if cls in STATUS_BY_TYPE:
            return STATUS_BY_TYPE[cls]  # type: ignore[index]
    return 500


def strata_error_response(exc: e.StrataError) -> JSONResponse:
    status = status_for(exc)
    if status >= 500:
        log.error("request failed: %s", exc, exc_info=exc)
    response = error_response(status, exc.code, exc.message, exc.hint)
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, round(retry_after)))
    return response


async def _on_strata_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, e.StrataError)
    return strata_error_response(exc)


async def _on_validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err.get("loc", ()) if part != "body") or "request"
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    response = error_response(
        422, "validation_error", "; ".join(problems) or "invalid request", "see /api/docs for the schema"
    )
    return response


async def _on_http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_CODES.get(exc.status_code, "http_error")
    response = error_response(exc.status_code, code, str(exc.detail))
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _on_unexpected(_: Request, exc: Exception) -> JSONResponse:
    # A bug, not an expected outcome: log the traceback, tell the caller nothing internal.
    log.exception("unhandled error", exc_info=exc)
    return error_response(500, "internal_error", "internal error; see the server log")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(e.StrataError, _on_strata_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected)
