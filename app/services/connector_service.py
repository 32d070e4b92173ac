"""Connector use cases: add/remove/test/sync live connectors, schedule syncs, merge identities."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.core.clock import Clock
from app.core.domain import IngestResult, RawMessage
from app.core.errors import ConfigError, Conflict, InvalidInput
from app.core.events import Change, EventBus
from app.core.storage.db import Database
from app.core.storage.messages import MessageRepository
from app.services.memory_service import MemoryService
from app.services.twins import TwinFilter
from connectors.base import (
    DEFAULT_INTERVAL_MINUTES,
    Connector,
    ConnectorConfig,
    ConnectorIdentity,
    ConnectorRegistry,
)
from connectors.identity import IdentityStore
from connectors.registry import default_registry
from connectors.retry import RetryPolicy
from connectors.secrets import SecretStore, token_key
from connectors.state import ConnectorState, ConnectorStateStore
from connectors.sync import SyncReport, SyncRunner

if TYPE_CHECKING:  # discord.py is imported only when a Discord connector listens
    from connectors.discord_live import DiscordLiveListener

log = logging.getLogger(__name__)
CONNECTOR_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
JOB_PREFIX = "connector-sync:"


class ConnectorService:
    def __init__(
        self,
        db: Database,
        memory: MemoryService,
        secrets: SecretStore,
        clock: Clock,
        *,
        user_id: str,
        events: EventBus | None = None,
        registry: ConnectorRegistry | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.db = db
        self.memory = memory
        self.secrets = secrets
        self.clock = clock
        self.user_id = user_id
        self.events = events
        self.registry = registry or default_registry()
        self.retry = retry or RetryPolicy()
        self.states = ConnectorStateStore(db, user_id)
        self.identities = IdentityStore(db, user_id)
        self.runner = SyncRunner(self.states, self._store, self._delete, clock)
        self._messages = MessageRepository()
        self.live: list[DiscordLiveListener] = []

    # -- configuration -------------------------------------------------------------------------
    def kinds(self) -> list[dict[str, Any]]:
        return [
            {"kind": k, "title": s.title, "options": list(s.options), "token_help": s.token_help}
            for k in self.registry.kinds()
            for s in [self.registry.spec(k)]
        ]

    def list_all(self) -> list[ConnectorState]:
        return self.states.list()

    def status(self, connector_id: str) -> ConnectorState:
        return self.states.get(connector_id)

    def add(
        self,
        kind: str,
        token: str,
        *,
        connector_id: str | None = None,
        options: dict[str, Any] | None = None,
        interval_minutes: int = DEFAULT_INTERVAL_MINUTES,
        test: bool = True,
        test_retry: RetryPolicy | None = None,
    ) -> tuple[ConnectorState, ConnectorIdentity | None]:
        """Configure a connector; with `test` the token is checked first and nothing is saved on failure.

        `test_retry` replaces the retry policy for that check only (a form waiting for an answer
        wants a quick "cannot reach", not the sync's patient back-off).
        """
        connector_id = connector_id or kind
        if not CONNECTOR_ID.match(connector_id):
            raise InvalidInput(
                f"connector id {connector_id!r} is not valid", hint="use lower-case letters, digits, - and _"
            )
        if interval_minutes < 1:
            raise InvalidInput("the sync interval must be at least 1 minute")
        options = dict(options or {})
        config = ConnectorConfig(connector_id, kind, token, options, test_retry or self.retry)
        connector = self.registry.configure(config)  # validates kind, options and token shape
        identity = None
        if test:
            try:
                identity = connector.validate()
            finally:
                connector.close()
        if self.states.find(connector_id) is not None:
            raise Conflict(
                f"a connector named {connector_id!r} already exists",
                hint="remove it first or pick another --id",
            )
        self.secrets.set(token_key(connector_id), token)
        try:
            state = self.states.add(connector_id, kind, options, interval_minutes, self.clock.now_ms())
        except Exception:
            self.secrets.delete(token_key(connector_id))
            raise
        self._publish("created", connector_id)
        return state, identity

    def remove(self, connector_id: str) -> bool:
        """Forget the connector and its token; messages it brought in stay in memory."""
        removed = self.states.remove(connector_id)
        self.secrets.delete(token_key(connector_id))
        if removed:
            self._publish("deleted", connector_id)
        return removed

    def _connector(self, state: ConnectorState) -> Connector:
        token = self.secrets.get(token_key(state.id))
        if not token:
            raise ConfigError(
                f"connector {state.id!r} has no token in the {self.secrets.backend_name} secret store",
                hint=f"remove it and add it again: `strata connectors add {state.kind} --token ...`",
            )
        return self.registry.configure(
            ConnectorConfig(state.id, state.kind, token, state.options, self.retry)
        )

    def test(self, connector_id: str) -> ConnectorIdentity:
        connector = self._connector(self.states.get(connector_id))
        try:
            return connector.validate()
        finally:
            connector.close()

    # -- syncing -------------------------------------------------------------------------------
    def sync(self, connector_id: str, *, limit: int | None = None, full: bool = False) -> SyncReport:
        if limit is not None and limit < 1:
            raise InvalidInput("--limit must be a positive number of messages")
        report = self.runner.run(self._connector(self.states.get(connector_id)), limit=limit, full=full)
        self._publish("synced", connector_id, report.to_dict())
        return report

    def sync_all(self, *, limit: int | None = None) -> list[SyncReport]:
        return [self.sync(s.id, limit=limit) for s in self.states.list() if s.enabled]

    def _store(self, messages: Sequence[RawMessage]) -> IngestResult:
        # Connectors do not know which local user they sync for; the settings do.
        own = [
            m if m.user_id == self.user_id else dataclasses.replace(m, user_id=self.user_id) for m in messages
        ]
        # Telegram private chats / basic groups: skip what an import already stored under its ids.
        twins = TwinFilter(self.db, self.user_id)
        result = self.memory.ingest(list(twins.drop_known(own)), actor="connector")
        return result.merged(IngestResult(duplicates=twins.dropped)) if twins.dropped else result

    def _delete(self, message_ids: Sequence[str]) -> int:
        """Delete platform-deleted messages that we have (ids unknown to us are ignored)."""
        record_ids = []
        with self.db.read() as session:
            for message_id in message_ids:
                platform = message_id.split(":", 1)[0]
                row = self._messages.find_by_message_id(session, self.user_id, message_id, platform)
                if row is not None:
                    record_ids.append(row.id)
        for record_id in record_ids:
            self.memory.delete(record_id, actor="connector")
        return len(record_ids)

    # -- scheduling and live ---------------------------------------------------------------------
    def schedule(self, scheduler: Any) -> list[str]:
        """Register one interval job per enabled connector on an APScheduler scheduler.

        `max_instances=1` + `coalesce` mean a slow sync is never stacked or replayed in a burst;
        the run lease in connector_state also keeps a CLI `sync` and the scheduler apart.
        """
        job_ids = []
        for state in self.states.list():
            job_id = JOB_PREFIX + state.id
            if not state.enabled:
                if scheduler.get_job(job_id):
                    scheduler.remove_job(job_id)
                continue
            scheduler.add_job(
                self._scheduled_sync,
                "interval",
                minutes=state.interval_minutes,
                args=[state.id],
                id=job_id,
                name=f"sync {state.id}",
                max_instances=1,
                coalesce=True,
                replace_existing=True,
            )
            job_ids.append(job_id)
        return job_ids

    def _scheduled_sync(self, connector_id: str) -> None:
        try:
            report = self.sync(connector_id)
            if not report.ok:
                log.warning("scheduled sync of %s: %s", connector_id, report.error_code)
        except Exception:
            # A scheduler job must not die on one bad run; the error is in connector_state too.
            log.exception("scheduled sync of %s failed", connector_id)

    def start_live(self) -> list[DiscordLiveListener]:
        """Start gateway listeners (Discord) in background threads; for the app and `serve`."""
        for state in self.states.list():
            if state.kind != "discord" or not state.enabled:
                continue
            token = self.secrets.get(token_key(state.id))
            if not token:
                continue
            from connectors.discord_live import DiscordLiveListener

            listener = DiscordLiveListener(token, self._store, self._delete)
            listener.start_in_thread()
            self.live.append(listener)
        return self.live

    def stop_live(self) -> None:
        for listener in self.live:
            listener.stop_thread()
        self.live.clear()

    # -- identity ------------------------------------------------------------------------------
    def person_aliases(self, person: str) -> tuple[str, ...]:
        return self.identities.aliases(person)

    def _publish(self, action: str, connector_id: str, details: dict[str, Any] | None = None) -> None:
        if self.events:
            self.events.publish(Change("connector", action, (connector_id,), details or {}))
