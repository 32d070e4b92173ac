"""`strata llm usage`, `strata privacy scan`, and the cap announced by `forget run` / `insights generate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from tests.forgetting.fake_openai import fake_openai

runner = CliRunner()
FIXTURE = Path(__file__).parents[1] / "services" / "fixtures" / "leaky_chat.jsonl"


@pytest.fixture(autouse=True)
def _clean_env(cli_env, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STRATA_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def run(*args: str) -> str:
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_reached_cap_is_announced_and_shown_in_usage(data_dir: Path) -> None:
    with fake_openai() as server:
        data_dir.mkdir(parents=True, exist_ok=True)
        (data_dir / "settings.toml").write_text(
            f'[llm]\nenabled = true\nbase_url = "{server.url}"\nmodel = "fake-model"\ndaily_token_cap = 1\n',
            encoding="utf-8",
        )
        run("import", "jsonl", str(FIXTURE))
        forget = run("forget", "run")
        insights = run("insights", "generate")
        assert server.requests == []
    assert "LLM cap reached" in forget
    assert "LLM token cap is reached" in insights and "strata llm usage" in insights
    usage = json.loads(run("llm", "usage", "--json"))
    assert usage["capReachedToday"] is True and usage["dailyTokenCap"] == 1
    assert {line["feature"] for line in usage["lines"]} == {"forgetting", "insights"}
    human = " ".join(run("llm", "usage").split())  # rich wraps at the runner's 80 columns
    assert "the daily cap was reached today" in human and "insights" in human


def test_privacy_scan_lists_records_with_secrets_by_id_without_the_values() -> None:
    run("import", "jsonl", str(FIXTURE))
    report = json.loads(run("privacy", "scan", "--json"))
    assert report["scannedMessages"] == 12
    kinds = {k for item in report["items"] for k in item["findings"]}
    assert {"aws-key", "github-token", "password", "openai-key", "card", "iban", "jwt"} <= kinds
    assert "email" not in kinds  # e-mails and phones only with --pii
    assert "hunter2" not in json.dumps(report) and "AKIAIOSFODNN7EXAMPLE" not in json.dumps(report)
    with_pii = json.loads(run("privacy", "scan", "--json", "--pii"))
    assert {"email", "phone"} <= {k for item in with_pii["items"] for k in item["findings"]}
    table = " ".join(run("privacy", "scan").split())
    assert "hold sensitive values" in table and "DELETE /api/messages/<id>" in table
