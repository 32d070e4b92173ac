"""`strata mcp install`: write (or print) the Strata entry of an MCP client's config file.

Both supported clients read `{"mcpServers": {name: {"command", "args", "env"}}}`; every other key
and every other server entry in an existing file is preserved. The command uses absolute paths
so the client can launch Strata without our virtualenv on its PATH.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import ConfigError, InvalidInput

SERVER_NAME = "strata"
CLIENTS = ("claude-desktop", "cursor")


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What `install` did: the file, the entry written, and whether an older entry was replaced."""

    config_path: Path
    entry: dict[str, Any]
    replaced: bool
    written: bool


def default_config_path(client: str, *, home: Path | None = None, platform: str | None = None) -> Path:
    """Where `client` keeps its MCP config on this OS."""
    home = home or Path.home()
    platform = platform or sys.platform
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if client == "claude-desktop":
        if platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if platform.startswith("win"):
            appdata = os.environ.get("APPDATA")
            base = Path(appdata) if appdata else home / "AppData" / "Roaming"
            return base / "Claude" / "claude_desktop_config.json"
        return home / ".config" / "Claude" / "claude_desktop_config.json"
    raise InvalidInput(f"unknown MCP client {client!r}", hint=f"choose one of: {', '.join(CLIENTS)}")


def launch_command(data_dir: Path, profile: str | None = None) -> tuple[str, list[str]]:
    """Absolute command + args that start `strata mcp [--profile P]` on `data_dir` over stdio."""
    data = str(data_dir.expanduser().resolve())
    tail = ["mcp", "--profile", profile] if profile else ["mcp"]
    if getattr(sys, "frozen", False):
        # Inside a PyInstaller bundle the executable is Strata itself.
        return sys.executable, ["--data-dir", data, *tail]
    interpreter = Path(sys.executable).absolute()
    script = interpreter.parent / ("strata.exe" if os.name == "nt" else "strata")
    if script.exists():
        return str(script), ["--data-dir", data, *tail]
    return str(interpreter), ["-m", "app.cli.main", "--data-dir", data, *tail]


def server_entry(data_dir: Path, profile: str | None = None) -> dict[str, Any]:
    command, args = launch_command(data_dir, profile)
    return {"command": command, "args": args, "env": {"STRATA_DATA_DIR": args[args.index("--data-dir") + 1]}}


def merged_config(existing: dict[str, Any], entry: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """`existing` with our entry set; other keys and servers untouched. Returns (config, replaced)."""
    config = dict(existing)
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(
            "the config file's 'mcpServers' is not a JSON object",
            hint="fix the file by hand, or use --print and paste the entry",
        )
    servers = dict(servers)
    replaced = SERVER_NAME in servers
    servers[SERVER_NAME] = entry
    config["mcpServers"] = servers
    return config, replaced


def read_config(path: Path) -> dict[str, Any]:
    if not path.exists() or not path.read_text(encoding="utf-8").strip():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); it was left unchanged",
            hint="fix the file by hand, or use --print and paste the entry",
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; it was left unchanged")
    return data


def install(
    client: str,
    data_dir: Path,
    *,
    config_path: Path | None = None,
    write: bool = True,
    profile: str | None = None,
) -> InstallResult:
    """Add or replace the `strata` server entry in the client's config (atomically)."""
    path = config_path or default_config_path(client)
    entry = server_entry(data_dir, profile)
    config, replaced = merged_config(read_config(path), entry)
    if write:
        _atomic_write_json(path, config)
    return InstallResult(config_path=path, entry=entry, replaced=replaced, written=write)


def snippet(entry: dict[str, Any]) -> str:
    """The config fragment a user can paste into their client's file by hand."""
    return json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2)


def _atomic_write_json(path: Path, data: dict[str, Any]) -> None:
    # Write-then-rename: a crash mid-write never leaves the client with a truncated config.
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
