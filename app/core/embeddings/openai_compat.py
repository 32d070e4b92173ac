"""Optional embedder for any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, LM Studio, vLLM)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import openai

from app.core.errors import ConfigError, ModelError

DEFAULT_BATCH_SIZE = 64
# Local servers ignore the key, but the SDK insists on one being set.
_PLACEHOLDER_KEY = "strata-local-no-key"


class OpenAICompatibleEmbedder:
    """Vectors from a remote model; `dimensions` comes from the settings or the first response."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        if not model:
            raise ConfigError(
                "embedding.model is empty", hint="set embedding.model, e.g. text-embedding-3-small"
            )
        if batch_size < 1:
            raise ConfigError("embedding.batch_size must be at least 1", hint="set a positive batch size")
        if dimensions is not None and dimensions < 1:
            raise ConfigError("embedding.dimensions must be positive", hint="remove it or set e.g. 1536")
        if not api_key and base_url is None:
            raise ConfigError(
                "the OpenAI embedding provider needs an API key",
                hint="store an OpenAI API key in settings, or point embedding.base_url at a local server",
            )
        self._model = model
        self._requested_dimensions = dimensions
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._client = openai.OpenAI(
            api_key=api_key or _PLACEHOLDER_KEY, base_url=base_url, timeout=timeout, max_retries=max_retries
        )

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    @property
    def dimensions(self) -> int:
        """Configured size, or learned from the endpoint with one probe request when still unknown."""
        if self._dimensions is None:
            self.embed_documents(["dimension probe"])
        assert self._dimensions is not None
        return self._dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self._dimensions or 0), dtype=np.float32)
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), self._batch_size):
            rows.append(self._request(list(texts[start : start + self._batch_size])))
        return np.concatenate(rows, axis=0)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector

    def _request(self, texts: list[str]) -> np.ndarray:
        # The API rejects empty strings; a single space embeds as "nothing" without failing the batch.
        inputs = [t if t.strip() else " " for t in texts]
        dimensions = self._requested_dimensions if self._requested_dimensions else openai.omit
        try:
            # "float" explicitly: many local servers do not implement the SDK's default base64 encoding.
            response = self._client.embeddings.create(
                model=self._model, input=inputs, encoding_format="float", dimensions=dimensions
            )
        except openai.OpenAIError as exc:
            raise to_strata_error(exc, self._model) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(inputs):
            raise ModelError(
                f"embedding endpoint returned {len(data)} vectors for {len(inputs)} texts",
                hint="the server is not OpenAI-compatible; check embedding.base_url",
            )
        matrix = np.asarray([item.embedding for item in data], dtype=np.float32)
        self._check_width(matrix.shape[1])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalized: np.ndarray = matrix / np.clip(norms, 1e-12, None)
        return normalized

    def _check_width(self, width: int) -> None:
        with self._lock:
            if self._dimensions is None:
                self._dimensions = width
                return
        if width != self._dimensions:
            raise ModelError(
                f"embedding model {self._model} returned {width}-d vectors, expected {self._dimensions}",
                hint="set embedding.dimensions to the model's size (or remove it) and re-embed",
            )


def to_strata_error(exc: openai.OpenAIError, model: str) -> ModelError:
    """Convert an openai SDK error at the seam; every embedding failure is a ModelError with a fix."""
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelError(
            f"embedding endpoint refused the API key ({exc.status_code})",
            hint="check the API key configured for embeddings",
        )
    if isinstance(exc, openai.NotFoundError):
        return ModelError(
            f"embedding model {model!r} or endpoint not found (404)",
            hint="check embedding.model and embedding.base_url (it usually ends in /v1)",
        )
    if isinstance(exc, openai.RateLimitError):
        return ModelError("embedding endpoint is rate limiting (429)", hint="retry later or lower batch size")
    if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        return ModelError(
            f"embedding endpoint rejected the request ({exc.status_code}): {exc.message}",
            hint="check embedding.model and embedding.dimensions",
        )
    if isinstance(exc, openai.APIStatusError):
        return ModelError(
            f"embedding endpoint failed with HTTP {exc.status_code}",
            hint="the server had an error; retry later",
        )
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("embedding endpoint timed out", hint="retry later, or check embedding.base_url")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(
            "cannot reach the embedding endpoint",
            hint="check embedding.base_url and that the server is running",
        )
    return ModelError(f"embedding request failed: {exc}", hint="check the embedding settings")
