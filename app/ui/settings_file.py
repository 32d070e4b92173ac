"""Write user choices from the Settings screen into the data dir's settings.toml (keeps other keys).

Settings are read once at start-up (composition root), so changes apply on the next start.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from app.core.errors import ConfigError


def update_settings_file(path: Path, updates: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge `updates` into the TOML file (a None value removes the key); returns the result."""
    current: dict[str, Any] = {}
    if path.exists():
        try:
            current = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path} is not valid TOML ({exc}); it was left unchanged", hint="fix or delete the file"
            ) from exc
    merged = _merge(current, updates)
    text = dumps(merged)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return merged


def _merge(base: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in updates.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            current = out.get(key)
            out[key] = _merge(current if isinstance(current, dict) else {}, value)
        else:
            out[key] = value
    return out


def dumps(data: dict[str, Any], prefix: str = "") -> str:
    """A small TOML writer for what settings hold: scalars, lists, nested tables, arrays of tables."""
    lines = [
        f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict) and not _is_tables(v)
    ]
    for key, value in data.items():
        name = f"{prefix}{_key(key)}"
        if isinstance(value, dict):
            lines.append("")
            lines.append(f"[{name}]")
            lines.append(dumps(value, prefix=f"{name}.").rstrip("\n"))
        elif _is_tables(value):
            # e.g. [[forgetting.retention]]: one table per rule (None fields are left out).
            for table in value:
                lines.append("")
                lines.append(f"[[{name}]]")
                body = {k: v for k, v in table.items() if v is not None}
                lines.append(dumps(body, prefix=f"{name}.").rstrip("\n"))
    return "\n".join(line for line in lines).strip("\n") + "\n"


def _is_tables(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(v, dict) for v in value)


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str | Path):
        return json.dumps(str(value), ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ConfigError(f"cannot store {type(value).__name__} in settings.toml")
