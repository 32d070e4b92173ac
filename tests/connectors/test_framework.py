"""Framework pieces: retry policy, registry, secret store, and that every vendor error is mapped."""

from __future__ import annotations

import inspect
import os
import random
import stat

import aiohttp
import discord
import keyring.errors
import pytest
import slack_sdk.errors
import telegram.error
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring

from app.core.errors import (
    ConfigError,
    ConnectorAuthFailed,
    ConnectorError,
    ConnectorNotFound,
    ConnectorRateLimited,
    ConnectorUnavailable,
    InvalidInput,
)
from connectors.base import ConnectorConfig
from connectors.discord import map_discord_error
from connectors.ids import telegram_chat_id_from_export
from connectors.registry import default_registry
from connectors.retry import RetryPolicy
from connectors.secrets import FileSecretStore, KeyringSecretStore, open_secret_store, redact
from connectors.slack import map_slack_error
from connectors.telegram import map_telegram_error


def test_retry_honours_retry_after_and_gives_up_on_auth(sleeps):
    policy = RetryPolicy(max_attempts=3, sleep=sleeps, rng=random.Random(1))
    outcomes = iter([ConnectorRateLimited("slow down", retry_after=7), ConnectorUnavailable("502"), "done"])

    def call():
        value = next(outcomes)
        if isinstance(value, Exception):
            raise value
        return value

    assert policy.call(call) == "done"
    assert 7 <= sleeps.waits[0] <= 8 and 1 <= sleeps.waits[1] <= 2  # then backoff step 2: base*2

    def revoked():
        raise ConnectorAuthFailed("revoked")

    with pytest.raises(ConnectorAuthFailed):
        policy.call(revoked)
    assert len(sleeps.waits) == 2


def test_backoff_grows_is_capped_and_jittered():
    policy = RetryPolicy(max_attempts=20, base_delay=1, max_delay=10, rng=random.Random(3))
    delays = [policy.delay(n, ConnectorUnavailable("x")) for n in range(1, 8)]
    assert all(d is not None for d in delays)
    assert delays[0] <= 1 and 4 <= delays[3] <= 8 and all(5 <= d <= 10 for d in delays[4:])
    assert len({round(d, 6) for d in delays[4:]}) > 1  # jitter: not lock-step
    assert policy.delay(1, ConnectorRateLimited("x", retry_after=3600)) is None  # too long: next sync
    assert policy.delay(20, ConnectorUnavailable("x")) is None


def test_registry_rejects_unknown_kinds_options_and_empty_tokens():
    registry = default_registry()
    assert registry.kinds() == ("discord", "slack", "telegram")
    with pytest.raises(InvalidInput, match="unknown connector kind"):
        registry.configure(ConnectorConfig("x", "matrix", "t"))
    with pytest.raises(InvalidInput, match="does not accept"):
        registry.configure(ConnectorConfig("s", "slack", "t", {"colour": "red"}))
    with pytest.raises(InvalidInput, match="needs a token"):
        registry.configure(ConnectorConfig("s", "slack", "  "))


def test_tokens_never_show_in_reprs():
    config = ConnectorConfig("slack", "slack", "xoxb-very-secret-token")
    connector = default_registry().configure(config)
    assert "very-secret" not in repr(config) and "very-secret" not in repr(connector)
    assert redact("xoxb-very-secret-token") == "***oken" and redact(None) == "(not set)"


def test_file_store_is_private_atomic_and_repairs_permissions(tmp_path):
    store = FileSecretStore(tmp_path / "secrets.json")
    assert store.get("a") is None and store.delete("a") is False
    store.set("a", "one")
    store.set("b", "two")
    assert store.get("a") == "one" and store.delete("a") and store.get("a") is None
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    os.chmod(store.path, 0o644)
    assert store.get("b") == "two"
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["secrets.json"]  # no temp files left behind
    store.path.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        store.get("b")


class MemoryKeyring(KeyringBackend):
    priority = 5  # type: ignore[assignment]
    # Not viable for discovery: keyring registers every subclass, and this one must never become
    # the process-wide default that other tests' bootstrap would pick up.
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        if (service, username) not in self.items:
            raise keyring.errors.PasswordDeleteError(username)
        del self.items[(service, username)]


def test_keyring_is_used_when_a_backend_exists_else_the_file(tmp_path):
    backend = MemoryKeyring()
    store = open_secret_store(tmp_path / "secrets.json", backend=backend)
    assert isinstance(store, KeyringSecretStore)
    store.set("connector:slack:token", "xoxb-1")
    assert backend.items[("strata", "connector:slack:token")] == "xoxb-1"
    assert store.delete("connector:slack:token") and not store.delete("connector:slack:token")
    assert not (tmp_path / "secrets.json").exists()
    assert isinstance(open_secret_store(tmp_path / "secrets.json", backend=FailKeyring()), FileSecretStore)


def _vendor_errors(module) -> list[type[Exception]]:
    return [c for _, c in inspect.getmembers(module, inspect.isclass) if issubclass(c, Exception)]


def test_every_vendor_error_maps_into_the_connector_tree():
    """httpx-style: each exception class the SDKs define lands on a ConnectorError subclass."""
    samples: list[tuple[object, Exception]] = []
    for cls in _vendor_errors(telegram.error):
        args = {"RetryAfter": (5,), "ChatMigrated": (-100,)}.get(cls.__name__, ("boom",))
        try:
            samples.append((map_telegram_error, cls(*args)))
        except TypeError:
            continue
    for cls in _vendor_errors(slack_sdk.errors):
        try:
            samples.append((map_slack_error, cls("boom")))
        except TypeError:
            continue
    for cls in (discord.LoginFailure, discord.GatewayNotFound, discord.ClientException, discord.RateLimited):
        samples.append((map_discord_error, cls(3.0) if cls is discord.RateLimited else cls()))
    samples.append((map_discord_error, aiohttp.ClientConnectionError("down")))
    assert len(samples) > 15
    for mapper, exc in samples:
        mapped = mapper(exc, "test")
        assert isinstance(mapped, ConnectorError), (type(exc), mapped)
    assert isinstance(map_telegram_error(telegram.error.RetryAfter(5), "x"), ConnectorRateLimited)
    assert isinstance(map_telegram_error(telegram.error.InvalidToken(), "x"), ConnectorAuthFailed)
    assert isinstance(map_telegram_error(telegram.error.BadRequest("Chat not found"), "x"), ConnectorNotFound)
    assert isinstance(map_telegram_error(telegram.error.TimedOut(), "x"), ConnectorUnavailable)
    assert isinstance(map_discord_error(discord.LoginFailure(), "x"), ConnectorAuthFailed)


def test_telegram_export_chat_ids_convert_to_bot_api_form():
    assert telegram_chat_id_from_export(1234567890, "private_supergroup") == -1001234567890
    assert telegram_chat_id_from_export(555, "private_group") == -555
    assert telegram_chat_id_from_export(42, "personal_chat") == 42
    assert telegram_chat_id_from_export(-1001, "public_channel") == -1001
