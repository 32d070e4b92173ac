"""`strata mcp install`: client config paths, absolute launch command, other entries preserved."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.core.errors import ConfigError, InvalidInput
from app.mcp.install import default_config_path, install, launch_command, snippet


def test_config_paths_per_os(tmp_path):
    home = tmp_path
    assert default_config_path("cursor", home=home) == home / ".cursor" / "mcp.json"
    mac = default_config_path("claude-desktop", home=home, platform="darwin")
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    linux = default_config_path("claude-desktop", home=home, platform="linux")
    assert linux == home / ".config/Claude/claude_desktop_config.json"
    with pytest.raises(InvalidInput, match="claude-desktop, cursor"):
        default_config_path("vscode", home=home)


def test_launch_command_is_absolute_and_names_the_data_dir(tmp_path):
    command, args = launch_command(tmp_path / "data")
    assert Path(command).is_absolute()
    assert args[-1] == "mcp"
    data = args[args.index("--data-dir") + 1]
    assert Path(data).is_absolute() and data.endswith("data")
    if Path(command).name.startswith("python"):
        assert args[:2] == ["-m", "app.cli.main"]
    assert Path(command).parent == Path(sys.executable).absolute().parent


def test_install_preserves_other_servers_and_keys(tmp_path):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps({"globalShortcut": "Ctrl+Space", "mcpServers": {"other": {"command": "/bin/other"}}})
    )
    result = install("claude-desktop", tmp_path / "data", config_path=config)
    written = json.loads(config.read_text())
    assert written["globalShortcut"] == "Ctrl+Space"
    assert written["mcpServers"]["other"] == {"command": "/bin/other"}
    assert written["mcpServers"]["strata"] == result.entry
    assert not result.replaced

    again = install("claude-desktop", tmp_path / "data2", config_path=config)
    assert again.replaced
    assert json.loads(config.read_text())["mcpServers"]["strata"]["args"][-2].endswith("data2")


def test_install_creates_missing_file_and_print_only_writes_nothing(tmp_path):
    config = tmp_path / "nested" / "mcp.json"
    dry = install("cursor", tmp_path / "d", config_path=config, write=False)
    assert not config.exists() and not dry.written
    assert json.loads(snippet(dry.entry))["mcpServers"]["strata"] == dry.entry
    install("cursor", tmp_path / "d", config_path=config)
    assert set(json.loads(config.read_text())["mcpServers"]) == {"strata"}


def test_broken_config_is_left_untouched(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text("{not json")
    with pytest.raises(ConfigError, match="left unchanged"):
        install("cursor", tmp_path / "d", config_path=config)
    assert config.read_text() == "{not json"
    config.write_text(json.dumps({"mcpServers": ["x"]}))
    with pytest.raises(ConfigError, match="mcpServers"):
        install("cursor", tmp_path / "d", config_path=config)
