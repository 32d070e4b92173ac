"""`strata token`, `strata serve` host refusal, `strata mcp install` through the real CLI."""

from __future__ import annotations

import json
import stat

from typer.testing import CliRunner

from app.cli.main import cli


def test_token_is_printed_and_stable(cli_env, data_dir):
    first = CliRunner().invoke(cli, ["token"])
    second = CliRunner().invoke(cli, ["token"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    token_file = data_dir / "api-token"
    assert first.stdout.strip() == token_file.read_text().strip()
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600


def test_serve_refuses_a_public_host_without_allow_remote(cli_env):
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 1
    assert "--allow-remote" in result.output


def test_mcp_install_writes_and_prints(cli_env, tmp_path, data_dir):
    config = tmp_path / "claude.json"
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    result = CliRunner().invoke(
        cli, ["mcp", "install", "--client", "claude-desktop", "--config-file", str(config)]
    )
    assert result.exit_code == 0, result.output
    servers = json.loads(config.read_text())["mcpServers"]
    assert set(servers) == {"other", "strata"}
    assert str(data_dir.resolve()) in servers["strata"]["args"]

    printed = CliRunner().invoke(cli, ["mcp", "install", "--client", "cursor", "--print"])
    assert printed.exit_code == 0
    assert json.loads(printed.stdout)["mcpServers"]["strata"]["args"][-1] == "mcp"

    bad = CliRunner().invoke(cli, ["mcp", "install", "--client", "vim", "--print"])
    assert bad.exit_code == 1 and "claude-desktop, cursor" in bad.output
