"""`--log-level`, `STRATA_LOG_LEVEL` and the log file as a CLI user meets them."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from app.cli.main import cli
from app.core.index.state import ActiveModel, write_active

SECRET = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQr"


def _warn_on_open(services) -> None:
    """Opening this data dir logs a warning whose traceback quotes a token (the previous model's
    settings are invalid): a real warning, from the real start-up path."""
    with services.db.write() as session:
        write_active(session, ActiveModel("retired-model", 7, {"provider": SECRET}), 0)


def test_a_command_logs_to_the_file_and_shows_warnings_masked(cli_env, services, data_dir):
    _warn_on_open(services)
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 0, result.output
    written = (data_dir / "logs" / "strata.log").read_text()
    for text in (written, result.stderr):
        assert "cannot build the previous embedding model retired-model" in text
        assert SECRET not in text and "input_value='[SECRET:" in text
    assert " WARNING [" in result.stderr and "app.bootstrap:" in result.stderr


def test_log_level_flag_beats_the_setting(cli_env, services, data_dir, monkeypatch):
    _warn_on_open(services)
    monkeypatch.setenv("STRATA_LOG_LEVEL", "DEBUG")
    result = CliRunner().invoke(cli, ["--log-level", "error", "stats"])
    assert result.exit_code == 0, result.output
    assert "retired-model" not in result.stderr
    assert not (data_dir / "logs" / "strata.log").exists()


def test_a_bad_level_is_a_clear_error(cli_env, monkeypatch):
    flag = CliRunner().invoke(cli, ["--log-level", "loud", "stats"])
    assert flag.exit_code == 2 and "unknown log level 'loud'" in flag.output
    monkeypatch.setenv("STRATA_LOG_LEVEL", "verbose")
    setting = CliRunner().invoke(cli, ["stats"])
    assert setting.exit_code == 1
    assert "invalid setting log_level = 'verbose'" in setting.output and "STRATA_LOG_LEVEL" in setting.output


def test_doctor_says_where_the_log_file_is(cli_env, services, data_dir):
    _warn_on_open(services)
    result = CliRunner().invoke(cli, ["doctor", "--json", "--skip-keys"])
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["log file"]["ok"] is True
    assert str(data_dir / "logs" / "strata.log") in checks["log file"]["detail"]
