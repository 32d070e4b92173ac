"""Secrets (connector tokens, the LLM key): the OS keyring, else a 0600 `secrets.json` in the data dir.

Why a plain 0600 file as the fallback rather than an encrypted one: on a headless machine with
no keyring backend there is nowhere else to keep a key, so encrypting the file with a key stored
next to it would only look safer. The file is private to the user (like ~/.ssh keys), is never
the settings file, and its values never appear in logs or reprs.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Protocol

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from app.core.errors import ConfigError

SERVICE = "strata"
log = logging.getLogger(__name__)


def redact(token: str | None) -> str:
    """A display form that proves a token is set without revealing it."""
    if not token:
        return "(not set)"
    return f"***{token[-4:]}" if len(token) >= 12 else "***"


class SecretStore(Protocol):
    backend_name: str

    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> None: ...
    def delete(self, name: str) -> bool: ...


class KeyringSecretStore:
    """Secrets in the OS keyring (Keychain, Windows Credential Locker, Secret Service)."""

    def __init__(self, backend: KeyringBackend) -> None:
        self._backend = backend
        self.backend_name = f"keyring:{type(backend).__module__}.{type(backend).__name__}"

    def get(self, name: str) -> str | None:
        return self._backend.get_password(SERVICE, name)

    def set(self, name: str, value: str) -> None:
        self._backend.set_password(SERVICE, name, value)

    def delete(self, name: str) -> bool:
        try:
            self._backend.delete_password(SERVICE, name)
        except keyring.errors.PasswordDeleteError:
            return False
        return True


class FileSecretStore:
    """Fallback: a JSON object in a file only the owner can read or write (mode 0600)."""

    backend_name = "file"

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, str]:
        if not self.path.exists():
            return {}
        self._check_mode()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"secrets file {self.path} is not valid JSON",
                hint="remove it, then add the connector tokens (`strata connectors add`) "
                "and the LLM key (`strata llm set-key`) again",
            ) from exc
        if not isinstance(data, dict):
            raise ConfigError(
                f"secrets file {self.path} must hold a JSON object", hint="remove it and re-add"
            )
        return {str(k): str(v) for k, v in data.items()}

    def _check_mode(self) -> None:
        if os.name == "posix" and self.path.stat().st_mode & 0o077:
            # Someone loosened the permissions; tighten them back rather than refuse to start.
            log.warning("secrets file %s was readable by others; resetting it to 0600", self.path)
            os.chmod(self.path, 0o600)

    def _write(self, data: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Write a private temp file and rename it, so a crash never leaves half a secrets file
        # and the file is never, even briefly, readable by others.
        fd, tmp = tempfile.mkstemp(prefix=".secrets-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, name: str) -> str | None:
        return self._read().get(name)

    def set(self, name: str, value: str) -> None:
        data = self._read()
        data[name] = value
        self._write(data)

    def delete(self, name: str) -> bool:
        data = self._read()
        if name not in data:
            return False
        del data[name]
        self._write(data)
        return True


def _usable(backend: KeyringBackend) -> bool:
    # The fail/null backends (headless Linux without Secret Service) have priority <= 0.
    try:
        return float(backend.priority) > 0
    except Exception:
        return False


def open_secret_store(fallback_file: Path, *, backend: KeyringBackend | None = None) -> SecretStore:
    """The keyring when the OS has a working backend, else the 0600 file at `fallback_file`."""
    chosen = backend if backend is not None else keyring.get_keyring()
    if _usable(chosen):
        return KeyringSecretStore(chosen)
    return FileSecretStore(fallback_file)
