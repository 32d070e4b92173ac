"""Connector tokens live in the shared secret store (app/core/secrets.py); this names them."""

from __future__ import annotations

from app.core.secrets import (
    SERVICE,
    FileSecretStore,
    KeyringSecretStore,
    SecretStore,
    open_secret_store,
    redact,
)

__all__ = [
    "SERVICE",
    "FileSecretStore",
    "KeyringSecretStore",
    "SecretStore",
    "open_secret_store",
    "redact",
    "token_key",
]


def token_key(connector_id: str) -> str:
    """The secret's name for one connector's token."""
    return f"connector:{connector_id}:token"
