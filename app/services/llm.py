"""The optional OpenAI-compatible LLM: its API key (environment, then the secret store) and one client.

The key never goes to settings.toml. Precedence: STRATA_LLM_API_KEY, then OPENAI_API_KEY, then the
key stored through Settings or `strata llm set-key`, else a placeholder that keyless local servers
(llama.cpp, Ollama, LM Studio) accept. The key is read when the client is used, so a key saved in
the window applies to the next LLM call without a restart.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from app.core.errors import InvalidInput
from app.core.secrets import SecretStore, redact
from app.core.settings import LLMSettings

KEY_NAME = "llm:api_key"
ENV_VARS = ("STRATA_LLM_API_KEY", "OPENAI_API_KEY")
# The OpenAI SDK refuses to start without some key; local servers ignore it.
KEYLESS = "not-needed"
MAX_KEY_CHARS = 4096


@dataclass(frozen=True, slots=True)
class KeyStatus:
    """Whether a key is stored and which one a call would use; never the key itself."""

    stored: bool
    source: str  # "env:STRATA_LLM_API_KEY", "env:OPENAI_API_KEY", "store" or "none"
    backend: str  # where stored keys live: "keyring:…" or "file" (or "none" without a store)

    def to_dict(self) -> dict[str, Any]:
        return {"stored": self.stored, "source": self.source, "backend": self.backend}


class LLMKeys:
    """Set, clear and resolve the LLM API key."""

    def __init__(self, secrets: SecretStore | None, environ: Mapping[str, str] | None = None) -> None:
        self._secrets = secrets
        self._environ = environ if environ is not None else os.environ

    def __repr__(self) -> str:
        return f"LLMKeys(backend={self.backend!r})"

    @property
    def backend(self) -> str:
        return self._secrets.backend_name if self._secrets is not None else "none"

    def resolve(self) -> str | None:
        """The key a call uses now: an environment variable overrides the stored key."""
        for name in ENV_VARS:
            value = self._environ.get(name, "").strip()
            if value:
                return value
        return self._stored()

    def status(self) -> KeyStatus:
        env = next((n for n in ENV_VARS if self._environ.get(n, "").strip()), None)
        stored = self._stored() is not None
        source = f"env:{env}" if env else ("store" if stored else "none")
        return KeyStatus(stored=stored, source=source, backend=self.backend)

    def set(self, key: str) -> KeyStatus:
        value = (key or "").strip()
        if not value:
            raise InvalidInput("the API key is empty", hint="paste the key your LLM provider gave you")
        if len(value) > MAX_KEY_CHARS or any(c.isspace() or not c.isprintable() for c in value):
            # Say what is wrong without echoing the value: it may be a real key pasted twice.
            raise InvalidInput(
                "that does not look like an API key (it has spaces, line breaks or is over 4096 characters)",
                hint="copy the key again, on its own",
            )
        self._require_store().set(KEY_NAME, value)
        return self.status()

    def clear(self) -> bool:
        """Remove the stored key; False when none was stored."""
        return self._require_store().delete(KEY_NAME)

    def _stored(self) -> str | None:
        if self._secrets is None:
            return None
        value = self._secrets.get(KEY_NAME)
        return value or None

    def _require_store(self) -> SecretStore:
        if self._secrets is None:
            raise InvalidInput(
                "no secret store is available here", hint="set STRATA_LLM_API_KEY in the environment"
            )
        return self._secrets


class LLMClient:
    """Looks like `openai.OpenAI` for `chat.completions.create`; built on first use (the SDK is heavy).

    The underlying SDK client is rebuilt when the resolved key changes. SDK errors whose text
    contains the key (a server echoing the Authorization header) are re-raised with it redacted,
    so the key cannot reach logs, run reports or REST error bodies.
    """

    def __init__(self, settings: LLMSettings, keys: LLMKeys) -> None:
        self.settings = settings
        self.keys = keys
        self._lock = threading.Lock()
        self._client: Any = None
        self._client_key: str | None = None
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def __repr__(self) -> str:
        return f"LLMClient(base_url={self.settings.base_url!r}, model={self.settings.model!r})"

    def prepare(self) -> LLMClient:
        """Build the SDK client now (resolving the key), so configuration errors surface here."""
        self._current()
        return self

    def _current(self) -> tuple[Any, str]:
        key = self.keys.resolve() or KEYLESS
        with self._lock:
            if self._client is None or self._client_key != key:
                import openai  # heavy: only when an LLM call is actually made

                self._client = openai.OpenAI(
                    api_key=key,
                    base_url=self.settings.base_url,
                    timeout=self.settings.timeout_seconds,
                    max_retries=1,
                )
                self._client_key = key
            return self._client, key

    def _create(self, **kwargs: Any) -> Any:
        client, key = self._current()
        import openai

        try:
            return client.chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            text = str(exc)
            if key == KEYLESS or key not in text:
                raise
            # `from None`: the original exception (and its response) still holds the key.
            raise openai.OpenAIError(text.replace(key, redact(key))) from None
