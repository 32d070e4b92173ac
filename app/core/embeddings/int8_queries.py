"""Queries embedded with int8 activations against the stored float-activation vectors of MiniLM.

The shipped model stores int8 weights that ONNX Runtime turns back into float32 matrices, so
every MatMul runs in float32. Dynamic quantization rewrites them as `MatMulInteger` over
activations quantized per call: ~2-3x less CPU per text. The vectors stay close to the float
ones (cosine ~0.993), so a query embedded this way is compared with the stored vectors as it is:
no re-embedding, same model id, same relevance scale. Measured: LoCoMo R@10 0.754 -> 0.756, but
on the precision set one unrelated query of 36 gets a hit and one answer drops from rank 3 to 4,
so it is a setting (`embedding.query_activations = "int8"`), not the default
(docs/benchmarks.md, "REST search CPU by stage").

The int8 file is derived from the verified pinned weights on this machine (no download): by
`python -m app.core.embeddings.install_model`, or in the background on the first query if it is
missing. It needs the `onnx` package (the quantizer reads and writes the graph with it). The
result is checked against its own pinned sha256; until a verified file exists, or when it
cannot be made, queries use the float model (the default's answers, only slower).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from app.core.embeddings.model_files import (
    bundled_model_dir,
    file_sha256,
    installed_tokenizer_path,
    locate_model,
    locate_tokenizer,
)
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder, _load_session, _load_tokenizer
from app.core.errors import ModelError

log = logging.getLogger(__name__)

INT8_FILE = "model-int8-activations.onnx"
# What the quantizer below makes from the pinned weights (onnx 1.23, onnxruntime 1.32; the same
# bytes on every run). Another onnx version may write other bytes: the test that builds it says so.
INT8_SHA256 = "aa42cbd88e66574987b221a7e1971f44006ba3a5914e5bbb7f2625ec790fe6dd"
# Intra-op threads, as for documents (two on the 2-core target). Measured at load ~12: two
# threads 1.9-2.0 ms CPU and 3-7 ms wall per query, one thread 2.5-2.6 ms CPU and ~20 ms wall.
QUERY_THREADS = max(1, min(os.cpu_count() or 1, 4))


def int8_candidates() -> list[Path]:
    """Where the int8 file may be: next to the installed tokenizer, then in the bundle."""
    return [installed_tokenizer_path().parent / INT8_FILE, bundled_model_dir() / INT8_FILE]


def find_int8_model(candidates: Sequence[Path] | None = None) -> Path | None:
    """The first candidate that exists with the pinned sha256; None if there is none."""
    for path in candidates or int8_candidates():
        if path.is_file() and file_sha256(path) == INT8_SHA256:
            return path
    return None


def build_int8_model(source: Path, dest: Path) -> Path:
    """Quantize the verified `source` into `dest` (written beside it, then renamed); ModelError
    if `onnx` is missing or the result is not the pinned file."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic  # imports `onnx`
    except ImportError as exc:
        raise ModelError(
            f"cannot make the int8 query model: {exc}", hint="pip install onnx (a Strata dependency)"
        ) from exc
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".int8-", dir=dest.parent) as tmp:
        folded = Path(tmp) / "folded.onnx"
        # Basic optimizations fold the int8 → float32 weight casts into plain float32
        # initializers, which is what quantize_dynamic recognizes as MatMul weights.
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
        target = Path(tmp) / INT8_FILE
        # Per-channel weight scales: per-tensor ones put the mean cosine with the float model at
        # 0.955 (top-10 overlap 0.78); per channel 0.993 / 0.89 (bench_embed_options.py).
        root = logging.getLogger()
        root.addFilter(_no_preprocessing_advice)
        try:
            quantize_dynamic(
                folded, target, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
            )
        finally:
            root.removeFilter(_no_preprocessing_advice)
        actual = file_sha256(target)
        if actual != INT8_SHA256:
            raise ModelError(
                f"the int8 query model made here has sha256 {actual[:12]}…, expected {INT8_SHA256[:12]}… "
                "(another onnx/onnxruntime version quantizes differently); queries stay on the float model",
                hint="install the onnx and onnxruntime versions pinned in pyproject.toml",
            )
        os.chmod(target, 0o644)
        os.replace(target, dest)
    return dest


def _no_preprocessing_advice(record: logging.LogRecord) -> bool:
    # The quantizer advises shape pre-processing on the root logger; it is for other models.
    return not str(record.msg).startswith("Please consider to run pre-processing")


def ensure_int8_model(candidates: Sequence[Path] | None = None) -> Path:
    """A verified int8 file: found, or built from the pinned weights into the first writable place."""
    candidates = list(candidates or int8_candidates())
    found = find_int8_model(candidates)
    if found is not None:
        return found
    source = locate_model()
    errors: list[str] = []
    for dest in candidates:
        try:
            return build_int8_model(source, dest)
        except OSError as exc:  # not writable (a read-only bundle): try the next place
            errors.append(f"{dest.parent}: {exc.strerror or exc}")
    raise ModelError(f"cannot write the int8 query model ({'; '.join(errors)})")


class Int8QueryEmbedder:
    """The local MiniLM for documents, its int8-activation variant for queries (same vectors space).

    Everything but `embed_query` is the wrapped embedder's. The int8 session is loaded on the
    first query (built in the background first if the file is missing, queries using the float
    model meanwhile); `load_queries()` does it now, for tools and tests."""

    def __init__(
        self,
        documents: OnnxMiniLMEmbedder,
        *,
        candidates: Sequence[Path] | None = None,
        threads: int = QUERY_THREADS,
        query_cache_size: int = 256,
    ) -> None:
        self.documents = documents
        self._candidates = list(candidates) if candidates is not None else None
        self._threads = threads
        self._cache_size = query_cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # the cache and the session fields
        self._load_lock = threading.Lock()  # one load or build at a time
        self._used_at = time.monotonic()
        self._session: ort.InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._building: threading.Thread | None = None
        self.failed: str | None = None  # why queries stay on the float model, once known

    @property
    def model_id(self) -> str:
        return self.documents.model_id

    @property
    def dimensions(self) -> int:
        return self.documents.dimensions

    @property
    def loaded(self) -> bool:
        return self.documents.loaded or self._session is not None

    @property
    def int8_ready(self) -> bool:
        return self._session is not None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.documents.embed_documents(texts)

    def load_queries(self) -> bool:
        """Find (or build) the int8 file and load its session now; False (with `failed` set) if it
        cannot be had, in which case queries keep using the float model."""
        if self._session is not None:
            return True
        with self._load_lock:
            return self._load()

    def _load(self) -> bool:
        if self._session is not None:
            return True
        try:
            path = ensure_int8_model(self._candidates)
            tokenizer = _load_tokenizer(locate_tokenizer())
            session = _load_session(path, self._threads)
        except (ModelError, OSError) as exc:
            self.failed = str(exc)
            log.warning("queries use the float model: %s", exc)
            return False
        with self._lock:
            self._tokenizer, self._session = tokenizer, session
        return True

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached.copy()
        self._used_at = time.monotonic()
        self._start_loading()
        with self._lock:
            session, tokenizer = self._session, self._tokenizer
        if session is None or tokenizer is None:
            return self.documents.embed_query(text)
        vector = _embed_one(session, tokenizer, text)
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        # Callers get their own copy so mutating a result cannot poison the cache.
        return vector.copy()

    def _start_loading(self) -> None:
        if self._session is not None or self.failed is not None:
            return
        if find_int8_model(self._candidates) is not None:
            self.load_queries()  # the file is there: loading takes ~0.2 s, do it on this query
            return
        with self._lock:  # building takes seconds: in the background, float queries meanwhile
            if self._building is None or (not self._building.is_alive() and self._session is None):
                self._building = threading.Thread(
                    target=self.load_queries, name="strata-int8-queries", daemon=True
                )
                self._building.start()

    def release_if_idle(self, idle_seconds: float, now: float | None = None) -> bool:
        """Drop the query session when unused for `idle_seconds` (the next query loads it again),
        and let the document model do the same if it can; True if anything was released."""
        now = time.monotonic() if now is None else now
        released = False
        with self._lock:
            if self._session is not None and now - self._used_at >= idle_seconds:
                self._session, self._tokenizer, released = None, None, True
        release = getattr(self.documents, "release_if_idle", None)
        if release is not None:
            released = bool(release(idle_seconds, now)) or released
        return released

    def wait_until_loaded(self, timeout: float | None = None) -> bool:
        """Wait for a background build started by a query (tests); True if the int8 model serves."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)
        return self._session is not None


def _embed_one(session: ort.InferenceSession, tokenizer: Tokenizer, text: str) -> np.ndarray:
    """One text: no padding, so the mean over its tokens needs no mask."""
    if not isinstance(text, str):
        raise TypeError(f"embed_query expects a string, got {type(text).__name__}")
    ids = np.asarray([tokenizer.encode(text).ids], dtype=np.int64)
    try:
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)},
        )
    except Exception as exc:  # onnxruntime raises its own untyped errors; convert at the seam
        raise ModelError(f"embedding model failed to run: {exc}", hint="check free memory") from exc
    pooled = hidden[0].mean(axis=0)
    vector: np.ndarray = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)
    return vector
