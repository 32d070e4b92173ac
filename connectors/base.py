"""The live-connector seam: the `Connector` protocol, its fetch batches and the explicit registry."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.core.domain import RawMessage
from app.core.errors import InvalidInput
from connectors.retry import RetryPolicy

# Scheduled sync interval of a new connector; here (not in the service) so the CLI can show it
# in `--help` without importing the connector clients.
DEFAULT_INTERVAL_MINUTES = 15


@dataclass(frozen=True, slots=True)
class FetchBatch:
    """Messages fetched together plus the cursor to save once (and only once) they are stored.

    `deleted` names message ids the platform reports as deleted since the last sync;
    `warnings` names parts that were skipped (e.g. a channel the token lost access to).
    `cursor` is opaque to everyone but the connector that made it.
    """

    messages: tuple[RawMessage, ...]
    cursor: str | None
    deleted: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConnectorIdentity:
    """What a token turned out to be: returned by `validate()` for `connectors test`."""

    account: str
    workspace: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Connector(Protocol):
    """One configured platform account. Persists nothing: it yields batches and cursors."""

    id: str
    kind: str

    def validate(self) -> ConnectorIdentity:
        """Check the token with the platform; raises a ConnectorError subclass on failure."""
        ...

    def fetch(self, since_cursor: str | None, *, limit: int | None = None) -> Iterator[FetchBatch]:
        """Yield batches in ascending time order, each with the cursor that covers it.

        With no cursor this is a backfill of at most `limit` recent messages per channel;
        with a cursor it continues exactly where the cursor points (no skipped messages).
        """
        ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ConnectorConfig:
    """Everything a factory needs to build a connector; `token` never leaves memory."""

    id: str
    kind: str
    token: str
    options: Mapping[str, Any] = field(default_factory=dict)
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def __repr__(self) -> str:
        # Tokens must never reach logs or tracebacks through a repr.
        options = dict(self.options)
        return f"ConnectorConfig(id={self.id!r}, kind={self.kind!r}, token='***', options={options!r})"


ConnectorFactory = Callable[[ConnectorConfig], Connector]


@dataclass(frozen=True, slots=True)
class ConnectorSpec:
    """A connector kind the registry knows: how to build it and which options it accepts."""

    kind: str
    title: str
    factory: ConnectorFactory
    options: tuple[str, ...] = ()
    token_help: str = ""


class ConnectorRegistry:
    """Explicit kind -> spec table; built in one place (`default_registry`), never by import magic."""

    def __init__(self, specs: tuple[ConnectorSpec, ...] = ()) -> None:
        self._specs: dict[str, ConnectorSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ConnectorSpec) -> None:
        if spec.kind in self._specs:
            raise ValueError(f"connector kind {spec.kind!r} registered twice")
        self._specs[spec.kind] = spec

    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(self._specs))

    def spec(self, kind: str) -> ConnectorSpec:
        try:
            return self._specs[kind]
        except KeyError:
            raise InvalidInput(
                f"unknown connector kind {kind!r}",
                hint=f"choose one of: {', '.join(self.kinds()) or '(none registered)'}",
            ) from None

    def configure(self, config: ConnectorConfig) -> Connector:
        spec = self.spec(config.kind)
        unknown = sorted(set(config.options) - set(spec.options))
        if unknown:
            raise InvalidInput(
                f"{config.kind} connector does not accept option(s) {', '.join(unknown)}",
                hint=f"accepted options: {', '.join(spec.options) or '(none)'}",
            )
        if not config.token.strip():
            raise InvalidInput(f"{config.kind} connector needs a token", hint=spec.token_help or None)
        return spec.factory(config)
