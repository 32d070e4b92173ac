"""The optional OpenAI-compatible LLM: its key (environment, then the secret store), the seam, usage.

The key never goes to settings.toml. Precedence: STRATA_LLM_API_KEY, then OPENAI_API_KEY, then the
key stored through Settings or `strata llm set-key`, else a placeholder that keyless local servers
(llama.cpp, Ollama, LM Studio) accept. The key is read when the client is used, so a key saved in
the window applies to the next LLM call without a restart.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.clock import Clock
from app.core.errors import InvalidInput
from app.core.llm.guard import Caps, GuardedLLM, Pricing
from app.core.llm.ledger import UsageLedger, UsageLine, utc_day
from app.core.llm.transport import OpenAICompatChat
from app.core.privacy.detector import Detector
from app.core.secrets import SecretStore
from app.core.settings import PrivacySettings, Settings
from app.core.storage.db import Database

KEY_NAME = "llm:api_key"
ENV_VARS = ("STRATA_LLM_API_KEY", "OPENAI_API_KEY")
MAX_KEY_CHARS = 4096


@dataclass(frozen=True, slots=True)
class KeyStatus:
    """Whether a key is stored and which one a call would use; never the key itself."""

    stored: bool
    source: str  # "env:STRATA_LLM_API_KEY", "env:OPENAI_API_KEY", "store" or "none"
    backend: str  # where stored keys live: "keyring:…" or "file" (or "none" without a store)

    def to_dict(self) -> dict[str, Any]:
        return {"stored": self.stored, "source": self.source, "backend": self.backend}


class LLMKeys:
    """Set, clear and resolve the LLM API key."""

    def __init__(self, secrets: SecretStore | None, environ: Mapping[str, str] | None = None) -> None:
        self._secrets = secrets
        self._environ = environ if environ is not None else os.environ

    def __repr__(self) -> str:
        return f"LLMKeys(backend={self.backend!r})"

    @property
    def backend(self) -> str:
        return self._secrets.backend_name if self._secrets is not None else "none"

    def resolve(self) -> str | None:
        """The key a call uses now: an environment variable overrides the stored key."""
        for name in ENV_VARS:
            value = self._environ.get(name, "").strip()
            if value:
                return value
        return self._stored()

    def status(self) -> KeyStatus:
        env = next((n for n in ENV_VARS if self._environ.get(n, "").strip()), None)
        stored = self._stored() is not None
        source = f"env:{env}" if env else ("store" if stored else "none")
        return KeyStatus(stored=stored, source=source, backend=self.backend)

    def set(self, key: str) -> KeyStatus:
        value = (key or "").strip()
        if not value:
            raise InvalidInput("the API key is empty", hint="paste the key your LLM provider gave you")
        if len(value) > MAX_KEY_CHARS or any(c.isspace() or not c.isprintable() for c in value):
            # Say what is wrong without echoing the value: it may be a real key pasted twice.
            raise InvalidInput(
                "that does not look like an API key (it has spaces, line breaks or is over 4096 characters)",
                hint="copy the key again, on its own",
            )
        self._require_store().set(KEY_NAME, value)
        return self.status()

    def clear(self) -> bool:
        """Remove the stored key; False when none was stored."""
        return self._require_store().delete(KEY_NAME)

    def _stored(self) -> str | None:
        if self._secrets is None:
            return None
        value = self._secrets.get(KEY_NAME)
        return value or None

    def _require_store(self) -> SecretStore:
        if self._secrets is None:
            raise InvalidInput(
                "no secret store is available here", hint="set STRATA_LLM_API_KEY in the environment"
            )
        return self._secrets


def build_detector(privacy: PrivacySettings, *, for_prompts: bool = False) -> Detector:
    """The detector of `[privacy] redact`; prompts to an LLM always include the secrets class."""
    classes = list(privacy.redact)
    if for_prompts and "secrets" not in classes:
        classes.insert(0, "secrets")
    return Detector(classes, phone_regions=privacy.phone_regions)


def build_llm(settings: Settings, keys: LLMKeys, db: Database, clock: Clock) -> GuardedLLM:
    """The one LLM every feature uses: the OpenAI-compatible transport behind the guarded seam."""
    llm = settings.llm
    transport = OpenAICompatChat(
        model=llm.model, base_url=llm.base_url, timeout_seconds=llm.timeout_seconds, key=keys.resolve
    )
    return GuardedLLM(
        transport,
        ledger=UsageLedger(db),
        clock=clock,
        user_id=settings.user_id,
        caps=Caps(daily_tokens=llm.daily_token_cap, daily_cost=llm.daily_cost_cap),
        detector=build_detector(settings.privacy, for_prompts=True),
        pricing=Pricing(llm.prompt_price_per_million, llm.completion_price_per_million),
    )


@dataclass(frozen=True, slots=True)
class UsageReport:
    """Today's use against the caps, and per (day, feature, model) lines for the last days."""

    enabled: bool
    model: str
    day: str
    tokens_today: int
    cost_today: float
    daily_token_cap: int
    daily_cost_cap: float
    cap_reached_today: bool
    lines: tuple[UsageLine, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "model": self.model,
            "day": self.day,
            "tokensToday": self.tokens_today,
            "costToday": round(self.cost_today, 6),
            "dailyTokenCap": self.daily_token_cap,
            "dailyCostCap": self.daily_cost_cap,
            "capReachedToday": self.cap_reached_today,
            "lines": [line.to_dict() for line in self.lines],
        }


def usage_report(settings: Settings, db: Database, clock: Clock, *, days: int = 30) -> UsageReport:
    ledger = UsageLedger(db)
    now = clock.now_ms()
    today = utc_day(now)
    tokens, cost = ledger.spent(settings.user_id, today)
    lines = tuple(ledger.lines(settings.user_id, since_day=utc_day(now - days * 86_400_000)))
    capped = any(line.day == today and line.capped for line in lines)
    return UsageReport(
        enabled=settings.llm.enabled,
        model=settings.llm.model,
        day=today,
        tokens_today=tokens,
        cost_today=cost,
        daily_token_cap=settings.llm.daily_token_cap,
        daily_cost_cap=settings.llm.daily_cost_cap,
        cap_reached_today=capped,
        lines=lines,
    )
