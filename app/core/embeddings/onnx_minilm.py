"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers, offline, no PyTorch."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from app.core.embeddings.model_files import MODEL_ID, ModelFiles, locate_model_files
from app.core.errors import ModelError

DIMENSIONS = 384
# The shipped tokenizer pads/truncates to 128; the model was trained at up to 256 word pieces.
MAX_TOKENS = 256
# Measured: 32 is as fast as 64 and keeps peak memory far lower on long chunks (64 peaked at 2.2 GB).
DEFAULT_BATCH_SIZE = 32
# Tokenize this many texts at a time so huge inputs do not hold every Encoding in memory at once.
_WINDOW = 2048
# ONNX Runtime's graph optimization levels by name (measured in bench_embed_options.py).
GRAPH_OPTIMIZATION = {
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}


class OnnxMiniLMEmbedder:
    """Lazy: files are verified and the session built on first use (or `load()`), so construction is cheap."""

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int | None = None,
        query_cache_size: int = 256,
        graph_optimization: str = "all",
        sort_by_length: bool = True,
        model_transform: Callable[[Path], Path] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._batch_size = batch_size
        # Leave no core idle on the 2-core target, but do not oversubscribe large machines either.
        self._threads = threads or max(1, min(os.cpu_count() or 1, 4))
        self._query_cache_size = query_cache_size
        if graph_optimization not in GRAPH_OPTIMIZATION:
            raise ValueError(f"graph_optimization must be one of {sorted(GRAPH_OPTIMIZATION)}")
        self._graph_optimization = graph_optimization
        self._sort_by_length = sort_by_length
        # Derives the model the session runs from the verified pinned file (e.g. dynamic int8).
        self._model_transform = model_transform
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._session: ort.InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._files: ModelFiles | None = None
        self._used_at = time.monotonic()
        self.loads = 0  # sessions built (a test counts reloads after an idle release)

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    @property
    def loaded(self) -> bool:
        return self._session is not None

    @property
    def files(self) -> ModelFiles:
        """The verified model and tokenizer paths (loads on first access)."""
        self.load()
        assert self._files is not None
        return self._files

    def load(self) -> None:
        """Verify both files against their pinned hashes and build the session; idempotent, thread-safe."""
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            files = locate_model_files(self._model_path, self._tokenizer_path)
            tokenizer = _load_tokenizer(files.tokenizer)
            runnable = self._model_transform(files.model) if self._model_transform else files.model
            session = _load_session(runnable, self._threads, self._graph_optimization)
            self._files, self._tokenizer, self._session = files, tokenizer, session
            self.loads += 1

    def release_if_idle(self, idle_seconds: float, now: float | None = None) -> bool:
        """Drop the session and tokenizer (~170 MB resident) when unused for `idle_seconds`;
        the next embedding builds them again (files verified again, ~0.3-1 s). True if released."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._session is None or now - self._used_at < idle_seconds:
                return False
            # A call in flight keeps its own references (see embed_documents) and finishes.
            self._session, self._tokenizer = None, None
            return True

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        self._used_at = time.monotonic()
        self.load()
        # Local references: an idle release in another thread cannot pull them from under this call.
        with self._lock:
            session, tokenizer = self._session, self._tokenizer
        if session is None or tokenizer is None:  # released between load() and here
            self.load()
            session, tokenizer = self._session, self._tokenizer
        assert session is not None and tokenizer is not None
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(texts), _WINDOW):
            window = list(texts[start : start + _WINDOW])
            out[start : start + len(window)] = self._embed_window(window, session, tokenizer)
        self._used_at = time.monotonic()
        return out

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._query_cache.get(text)
            if cached is not None:
                self._query_cache.move_to_end(text)
                return cached.copy()
        vector: np.ndarray = self.embed_documents([text])[0]
        with self._lock:
            self._query_cache[text] = vector
            self._query_cache.move_to_end(text)
            while len(self._query_cache) > self._query_cache_size:
                self._query_cache.popitem(last=False)
        # Callers get their own copy so mutating a result cannot poison the cache.
        return vector.copy()

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """`embed_query` of each text, the ones not cached in one model call: the vectors are the
        same (padding is masked out), and one call of two or three short texts costs ~20 % less
        CPU than as many calls (docs/benchmarks.md, "1M: concurrent legs and filters")."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                cached = self._query_cache.get(text)
                if cached is not None:
                    self._query_cache.move_to_end(text)
                    found[text] = cached
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            vectors = self.embed_documents(missing)
            with self._lock:
                for text, vector in zip(missing, vectors, strict=True):
                    found[text] = vector
                    self._query_cache[text] = vector
                    self._query_cache.move_to_end(text)
                while len(self._query_cache) > self._query_cache_size:
                    self._query_cache.popitem(last=False)
        return [found[t].copy() for t in texts]

    def remember_queries(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Put query vectors made by this model elsewhere (the REST server embeds waiting
        searches' queries in batches, app/api/query_batch.py) in the query cache: the search
        that asks for them next runs no model. The same vectors it would make: padding is masked
        out, so a text's vector does not depend on its batch."""
        with self._lock:
            for text, vector in vectors.items():
                self._query_cache[text] = np.asarray(vector, dtype=np.float32)
                self._query_cache.move_to_end(text)
            while len(self._query_cache) > self._query_cache_size:
                self._query_cache.popitem(last=False)

    def _embed_window(
        self, texts: list[str], session: ort.InferenceSession, tokenizer: Tokenizer
    ) -> np.ndarray:
        encodings = tokenizer.encode_batch([_as_text(t) for t in texts])
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        # Similar lengths share a batch, so little compute is spent on padding.
        order = (
            sorted(range(len(ids)), key=lambda i: len(ids[i]))
            if self._sort_by_length
            else list(range(len(ids)))
        )
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            batch = order[start : start + self._batch_size]
            out[batch] = self._run(session, [ids[i] for i in batch])
        return out

    def _run(self, session: ort.InferenceSession, batch: list[np.ndarray]) -> np.ndarray:
        width = max(len(row) for row in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, token_ids in enumerate(batch):
            input_ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1
        try:
            (hidden,) = session.run(
                ["last_hidden_state"],
                {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)},
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors; convert at the seam
            raise ModelError(f"embedding model failed to run: {exc}", hint="check free memory") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalized: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return normalized


def _as_text(value: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"embed_documents expects strings, got {type(value).__name__}")
    return value


def _load_tokenizer(path: Path) -> Tokenizer:
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception on malformed JSON
        raise ModelError(f"cannot load tokenizer {path}: {exc}") from exc
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    # We pad per batch ourselves (to the longest row), so the shipped fixed-128 padding is turned off.
    tokenizer.no_padding()
    return tokenizer


def _load_session(path: Path, threads: int, graph_optimization: str = "all") -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = GRAPH_OPTIMIZATION[graph_optimization]
    # Idle worker threads would otherwise spin and burn a core between batches in a desktop app.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # The CPU arena keeps every peak for the life of the session: one 32 x 256-token batch left
    # +1.2 GB resident (+12 MB without it), a lasting step-up after each import or document add.
    options.enable_cpu_mem_arena = False
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's errors are not importable types across versions
        raise ModelError(f"cannot load embedding model {path}: {exc}") from exc
