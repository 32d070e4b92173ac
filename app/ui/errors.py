"""Errors become presentation here, by type: a short title and a what-to-do line for the banner."""

from __future__ import annotations

from app.core import errors as e

_TITLES: list[tuple[type[BaseException], str]] = [
    (e.ConnectorAuthFailed, "The platform refused the token"),
    (e.ConnectorRateLimited, "The platform asked us to slow down"),
    (e.ConnectorUnavailable, "The platform could not be reached"),
    (e.ConnectorNotFound, "Channel or chat not found"),
    (e.ConnectorError, "Connector error"),
    (e.PayloadTooLarge, "File too large"),
    (e.UnsupportedFormat, "Unsupported file type"),
    (e.InvalidInput, "Invalid input"),
    (e.NotFound, "Not found"),
    (e.Conflict, "Already in progress or changed elsewhere"),
    (e.ModelError, "Embedding model problem"),
    (e.MigrationError, "Database upgrade failed"),
    (e.DiskFull, "The disk is full"),
    (e.StorageLocked, "Another Strata process is busy writing"),
    (e.StorageCorrupt, "The database is damaged"),
    (e.DataDirUnusable, "The data folder cannot be used"),
    (e.StorageError, "Storage error"),
    (e.ConfigError, "Configuration problem"),
    (e.AuthError, "Not authorized"),
    (e.LLMCapReached, "Daily LLM cap reached"),
    (e.LLMAuthFailed, "The LLM endpoint refused the key"),
    (e.LLMError, "LLM endpoint failed"),
    (e.StrataError, "Something went wrong"),
]


def describe(exc: BaseException) -> tuple[str, str]:
    """(title, detail) for a failure; unexpected exceptions get a generic title and their text."""
    for kind, title in _TITLES:
        if isinstance(exc, kind):
            return title, str(exc)
    if isinstance(exc, OSError):
        return "File or network error", str(exc)
    return "Unexpected error", f"{type(exc).__name__}: {exc}"
