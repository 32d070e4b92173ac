"""The one exception tree of Strata; shells turn these into HTTP codes, MCP errors or dialogs.

    StrataError                      base: `code` is a stable machine-readable string
    ├── ConfigError                  settings or environment unusable
    ├── ModelError                   embedding model files missing, corrupt or unloadable
    ├── StorageError                 database or vector index failure
    │   ├── MigrationError           schema could not be brought up to date
    │   ├── DiskFull                 no space left (SQLite FULL, ENOSPC); reads keep working
    │   ├── StorageLocked            another process held the write lock past the busy timeout
    │   ├── StorageCorrupt           the database file is damaged or not a database
    │   └── DataDirUnusable          the data dir cannot be created, read or written
    ├── InvalidInput                 caller sent something we cannot accept
    │   ├── PayloadTooLarge          over a configured size limit
    │   ├── UnsupportedFormat        a file type we cannot read
    │   └── UnreadableDocument       a supported type, but corrupt, encrypted or without text
    ├── NotFound                     the named record does not exist
    ├── Conflict                     duplicate upload, lock held, concurrent change
    ├── Cancelled                    the caller stopped a long operation; nothing was stored
    ├── AuthError                    missing or wrong local token
    ├── LLMError                     optional LLM endpoint failed (callers fall back)
    │   ├── LLMCapReached            the daily token or cost cap would be passed; nothing was sent
    │   ├── LLMAuthFailed            401/403 from the endpoint: key missing, wrong or without access
    │   ├── LLMRateLimited           429 from the endpoint (rate or quota)
    │   └── LLMUnavailable           endpoint down, 5xx, timeout, network error
    └── ConnectorError               platform errors, converted at the connector seam
        ├── ConnectorAuthFailed      token revoked or wrong
        ├── ConnectorRateLimited     429; `retry_after` seconds when the platform said
        ├── ConnectorUnavailable     5xx, timeouts, network down
        └── ConnectorNotFound        channel/chat gone or invisible to the token

Expected outcomes ("nothing to forget", "lock held by another run") are return values.
"""

from __future__ import annotations


class StrataError(Exception):
    """Base of every error Strata raises on purpose."""

    code = "strata_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(StrataError):
    code = "config_error"


class ModelError(StrataError):
    code = "model_error"


class StorageError(StrataError):
    code = "storage_error"


class MigrationError(StorageError):
    code = "migration_error"


# The storage faults keep the `storage_error` code (a documented REST contract: 503 storage_error);
# their types let each shell phrase the advice.
class DiskFull(StorageError):
    pass


class StorageLocked(StorageError):
    pass


class StorageCorrupt(StorageError):
    pass


class DataDirUnusable(StorageError):
    pass


class InvalidInput(StrataError):
    code = "invalid_input"


class PayloadTooLarge(InvalidInput):
    code = "payload_too_large"


class UnsupportedFormat(InvalidInput):
    code = "unsupported_format"


class UnreadableDocument(InvalidInput):
    code = "unreadable_document"


class NotFound(StrataError):
    code = "not_found"


class Conflict(StrataError):
    code = "conflict"


class Cancelled(StrataError):
    code = "cancelled"


class AuthError(StrataError):
    code = "unauthorized"


class LLMError(StrataError):
    code = "llm_error"


class LLMCapReached(LLMError):
    code = "llm_cap_reached"


class LLMAuthFailed(LLMError):
    code = "llm_auth_failed"


class LLMRateLimited(LLMError):
    code = "llm_rate_limited"


class LLMUnavailable(LLMError):
    code = "llm_unavailable"


class ConnectorError(StrataError):
    code = "connector_error"


class ConnectorAuthFailed(ConnectorError):
    code = "connector_auth_failed"


class ConnectorRateLimited(ConnectorError):
    code = "connector_rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class ConnectorUnavailable(ConnectorError):
    code = "connector_unavailable"


class ConnectorNotFound(ConnectorError):
    code = "connector_not_found"
