"""settings.toml updates from the Settings screen keep other keys and round-trip through tomllib."""

from __future__ import annotations

import tomllib

import pytest

from app.core.errors import ConfigError
from app.core.settings import load_settings
from app.ui.settings_file import update_settings_file


def test_update_merges_and_round_trips(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('user_id = "me"\n[search]\ndefault_limit = 7\n', encoding="utf-8")
    update_settings_file(
        path, {"api": {"port": 4000, "enabled_in_app": False}, "embedding": {"provider": "hashing"}}
    )
    update_settings_file(path, {"llm": {"base_url": 'http://127.0.0.1:8080/v1 "x"', "enabled": True}})
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["user_id"] == "me" and data["search"]["default_limit"] == 7
    assert data["api"] == {"port": 4000, "enabled_in_app": False}
    assert data["llm"]["base_url"].endswith('"x"')
    settings = load_settings(tmp_path)
    assert settings.api.port == 4000 and settings.embedding.provider == "hashing"
    update_settings_file(path, {"llm": {"base_url": None}})
    assert "base_url" not in tomllib.loads(path.read_text(encoding="utf-8"))["llm"]


def test_broken_file_is_left_alone(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text("this is = = not toml", encoding="utf-8")
    with pytest.raises(ConfigError, match="left unchanged"):
        update_settings_file(path, {"api": {"port": 1}})
    assert path.read_text(encoding="utf-8") == "this is = = not toml"
