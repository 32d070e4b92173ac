"""`strata llm status|set-key|clear-key` on a temp data dir (no OS keyring: the 0600 file)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from typer.testing import CliRunner

from app.cli.main import cli

runner = CliRunner()
KEY = "sk-cli-0123456789abcdefSECRET"


@pytest.fixture(autouse=True)
def _clean_env(cli_env, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STRATA_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def status() -> dict:
    result = runner.invoke(cli, ["llm", "status", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_set_status_clear_never_print_the_key(data_dir) -> None:
    assert status()["key"] == {"stored": False, "source": "none", "backend": "file"}
    added = runner.invoke(cli, ["llm", "set-key"], input=f"{KEY}\n")  # the hidden prompt
    assert added.exit_code == 0, added.output
    assert KEY not in added.output and "stored in the file store" in added.output
    secrets = data_dir / "secrets.json"
    assert json.loads(secrets.read_text())["llm:api_key"] == KEY
    if os.name == "posix":
        assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    data = status()
    assert data["key"]["source"] == "store" and KEY not in json.dumps(data)
    human = runner.invoke(cli, ["llm", "status"])
    assert "API key: stored" in human.output and KEY not in human.output
    cleared = runner.invoke(cli, ["llm", "clear-key"])
    assert cleared.exit_code == 0 and "stored key removed" in cleared.output
    assert status()["key"]["stored"] is False
    assert "no key was stored" in runner.invoke(cli, ["llm", "clear-key"]).output


def test_stdin_and_environment_override(monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner.invoke(cli, ["llm", "set-key", "--stdin"], input=f"{KEY}\n").exit_code == 0
    monkeypatch.setenv("STRATA_LLM_API_KEY", "sk-env")
    data = status()
    assert data["key"] == {"stored": True, "source": "env:STRATA_LLM_API_KEY", "backend": "file"}
    again = runner.invoke(cli, ["llm", "set-key", "--stdin"], input=KEY)
    assert "STRATA_LLM_API_KEY is set and overrides" in again.output


def test_a_bad_key_is_refused(data_dir) -> None:
    result = runner.invoke(cli, ["llm", "set-key", "--stdin"], input="two words\n")
    assert result.exit_code == 1
    assert "does not look like an API key" in result.output and "two words" not in result.output
    assert not (data_dir / "secrets.json").exists()
