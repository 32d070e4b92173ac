"""OpenAICompatibleEmbedder through the real openai SDK against a local `/v1/embeddings` server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.bootstrap import build_services
from app.core.embeddings.openai_compat import OpenAICompatibleEmbedder
from app.core.errors import ConfigError, ModelError
from app.core.secrets import open_secret_store
from app.core.settings import EmbeddingSettings, Settings
from app.services.llm import LLMKeys
from tests.conftest import make_message

API_KEY = "sk-test-key"


@dataclass
class FakeEmbeddingsServer:
    """Speaks just enough of the OpenAI wire protocol; queue `failures` to answer with error statuses."""

    width: int = 8
    failures: list[int] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def vector(self, text: str) -> list[float]:
        # Deterministic, unnormalized, so the client's normalization is observable.
        seed = sum(text.encode("utf-8")) + len(text)
        return [float((seed * (i + 3)) % 17 + 1) for i in range(self.width)]


def _handler(state: FakeEmbeddingsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep pytest output clean
            return

        def _reply(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
            if self.path != "/v1/embeddings":
                self._reply(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})
                return
            if self.headers.get("Authorization") != f"Bearer {API_KEY}":
                self._reply(401, {"error": {"message": "Incorrect API key", "type": "invalid_api_key"}})
                return
            if state.failures:
                status = state.failures.pop(0)
                self._reply(status, {"error": {"message": "upstream exploded", "type": "server_error"}})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            if any(t == "" for t in texts):
                self._reply(400, {"error": {"message": "'$.input' is invalid", "type": "invalid_request"}})
                return
            width = body.get("dimensions") or state.width
            state.width = width
            # Reversed on purpose: clients must order by `index`, not by position.
            data = [
                {"object": "embedding", "index": i, "embedding": state.vector(t)} for i, t in enumerate(texts)
            ][::-1]
            self._reply(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body["model"],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )

    return Handler


@pytest.fixture
def server() -> Iterator[FakeEmbeddingsServer]:
    state = FakeEmbeddingsServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def _embedder(server: FakeEmbeddingsServer, **kwargs: Any) -> OpenAICompatibleEmbedder:
    options: dict[str, Any] = {"base_url": server.base_url, "api_key": API_KEY, "max_retries": 0}
    options.update(kwargs)
    return OpenAICompatibleEmbedder("text-embedding-3-small", **options)


def test_embeds_in_batches_in_order_and_normalized(server: FakeEmbeddingsServer) -> None:
    embedder = _embedder(server, batch_size=2)
    texts = ["alpha", "beta", "gamma", "", "delta"]
    vectors = embedder.embed_documents(texts)
    assert vectors.shape == (5, 8)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    expected = np.asarray(server.vector("gamma"), dtype=np.float32)
    np.testing.assert_allclose(vectors[2], expected / np.linalg.norm(expected), atol=1e-6)
    assert [len(r["input"]) for r in server.requests] == [2, 2, 1]
    assert all(r["encoding_format"] == "float" and "dimensions" not in r for r in server.requests)
    assert embedder.model_id == "openai:text-embedding-3-small"


def test_dimensions_learned_from_first_response(server: FakeEmbeddingsServer) -> None:
    embedder = _embedder(server)
    assert embedder.dimensions == 8  # one probe request
    assert len(server.requests) == 1
    assert embedder.embed_query("hello").shape == (8,)


def test_configured_dimensions_are_requested(server: FakeEmbeddingsServer) -> None:
    embedder = _embedder(server, dimensions=4)
    assert embedder.dimensions == 4
    assert embedder.embed_documents(["a", "b"]).shape == (2, 4)
    assert server.requests[0]["dimensions"] == 4


def test_width_mismatch_is_a_model_error(server: FakeEmbeddingsServer) -> None:
    embedder = _embedder(server)
    embedder.embed_query("first")
    server.width = 6  # the server silently changed models
    with pytest.raises(ModelError, match="returned 6-d vectors, expected 8"):
        embedder.embed_query("second")


def test_server_error_becomes_model_error(server: FakeEmbeddingsServer) -> None:
    server.failures.append(500)
    with pytest.raises(ModelError, match="HTTP 500") as info:
        _embedder(server).embed_query("hello")
    assert info.value.hint


def test_server_error_is_retried_by_the_sdk(server: FakeEmbeddingsServer) -> None:
    server.failures.append(500)
    vector = _embedder(server, max_retries=1).embed_query("hello")
    assert vector.shape == (8,)
    assert len(server.requests) == 2


def test_wrong_key_becomes_model_error(server: FakeEmbeddingsServer) -> None:
    with pytest.raises(ModelError, match="refused the API key") as info:
        _embedder(server, api_key="sk-wrong").embed_query("hello")
    assert "API key" in (info.value.hint or "")


def test_wrong_base_url_is_not_found(server: FakeEmbeddingsServer) -> None:
    embedder = _embedder(server, base_url=server.base_url.removesuffix("/v1") + "/nope")
    with pytest.raises(ModelError, match="not found"):
        embedder.embed_query("hello")


def test_unreachable_server_is_a_model_error() -> None:
    embedder = OpenAICompatibleEmbedder(
        "m", base_url="http://127.0.0.1:9/v1", api_key=API_KEY, max_retries=0, timeout=5
    )
    with pytest.raises(ModelError, match="cannot reach"):
        embedder.embed_query("hello")


def test_local_server_needs_no_key(server: FakeEmbeddingsServer) -> None:
    embedder = OpenAICompatibleEmbedder("m", base_url=server.base_url, max_retries=0)
    with pytest.raises(ModelError):  # our fake insists on a key; a real local server would not
        embedder.embed_query("x")
    assert server.requests[0]["auth"].startswith("Bearer ")


def test_openai_without_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="needs an API key"):
        OpenAICompatibleEmbedder("text-embedding-3-small", api_key=None)


def test_empty_list_makes_no_request(server: FakeEmbeddingsServer) -> None:
    assert _embedder(server, dimensions=8).embed_documents([]).shape == (0, 8)
    assert server.requests == []


def test_services_use_the_stored_key_for_the_openai_provider(
    server: FakeEmbeddingsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("STRATA_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(
        data_dir=tmp_path,
        embedding=EmbeddingSettings(provider="openai", base_url=server.base_url),
    )
    LLMKeys(open_secret_store(settings.layout.ensure().secrets_file)).set(API_KEY)
    services = build_services(settings)
    try:
        services.memory.ingest([make_message(1, content="the offsite is in Lisbon")])
        assert services.memory.search("Lisbon", limit=1)
    finally:
        services.close()
    embedding_calls = [r for r in server.requests if r["path"] == "/v1/embeddings"]
    assert embedding_calls and all(r["auth"] == f"Bearer {API_KEY}" for r in embedding_calls)
