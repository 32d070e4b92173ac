"""The OpenAI-compatible chat transport: the only module that imports the `openai` SDK.

The SDK is imported on first use (it costs ~1 s of start-up). Every SDK and network error is
converted here into the `LLMError` subtree; an error text that echoes the API key is redacted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from app.core.errors import LLMAuthFailed, LLMError, LLMRateLimited, LLMUnavailable
from app.core.llm.base import ChatReply, ChatRequest, estimate_tokens
from app.core.secrets import redact as redact_key

# The SDK refuses to start without some key; keyless local servers (llama.cpp, Ollama) ignore it.
KEYLESS = "not-needed"


class OpenAICompatChat:
    """`key` is called before each request, so a key saved in Settings applies without a restart."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        timeout_seconds: float,
        key: Callable[[], str | None],
        max_retries: int = 1,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_seconds = timeout_seconds
        self._key = key
        self._max_retries = max_retries
        self._lock = threading.Lock()
        self._client: Any = None
        self._client_key: str | None = None

    def __repr__(self) -> str:
        return f"OpenAICompatChat(base_url={self.base_url!r}, model={self.model!r})"

    def prepare(self) -> OpenAICompatChat:
        """Build the SDK client now (resolving the key), so configuration errors surface here."""
        self._current()
        return self

    def _current(self) -> tuple[Any, str]:
        key = self._key() or KEYLESS
        with self._lock:
            if self._client is None or self._client_key != key:
                import openai

                self._client = openai.OpenAI(
                    api_key=key,
                    base_url=self.base_url,
                    timeout=self.timeout_seconds,
                    max_retries=self._max_retries,
                )
                self._client_key = key
            return self._client, key

    def complete(self, request: ChatRequest) -> ChatReply:
        client, key = self._current()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
        }
        if request.schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "strict": True, "schema": request.schema},
            }
        elif request.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = client.chat.completions.create(**kwargs)
        except Exception as exc:
            raise map_error(exc, key) from None  # `from None`: the SDK error still holds the key
        choices = getattr(response, "choices", None)
        if not choices:
            raise LLMError("the model returned no choices", hint="check the model name and the server logs")
        content = choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            prompt = int(usage.prompt_tokens or 0)
            completion = int(getattr(usage, "completion_tokens", 0) or 0)
            reported = True
        else:
            prompt = estimate_tokens(request.system) + estimate_tokens(request.user)
            completion = estimate_tokens(content)
            reported = False
        return ChatReply(
            content, str(getattr(response, "model", "") or self.model), prompt, completion, reported
        )


def map_error(exc: BaseException, key: str | None = None) -> LLMError:
    """Any failure of the SDK or the network as an `LLMError`, by type (never by message text)."""
    import httpx
    import openai

    text = f"{type(exc).__name__}: {exc}"
    if key and key != KEYLESS and key in text:
        text = text.replace(key, redact_key(key))
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return LLMAuthFailed(text, hint="check the key (`strata llm set-key`) and the endpoint")
    if isinstance(exc, openai.RateLimitError):
        return LLMRateLimited(text, hint="the provider limits request rate or quota; try later")
    if isinstance(exc, openai.APIConnectionError | openai.InternalServerError):
        return LLMUnavailable(text, hint="is the endpoint up? check [llm] base_url")
    if isinstance(exc, openai.OpenAIError):
        return LLMError(text, hint="the endpoint refused the request; check [llm] model")
    if isinstance(exc, httpx.HTTPError | OSError | TimeoutError):
        return LLMUnavailable(text, hint="is the endpoint up? check [llm] base_url")
    if isinstance(exc, LLMError):
        return exc
    return LLMError(text)
