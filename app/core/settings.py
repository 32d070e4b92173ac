"""Settings: defaults, then `settings.toml` in the data dir, then `STRATA_*` environment variables."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.errors import ConfigError
from app.core.logs.setup import parse_level
from app.core.paths import DataLayout, default_data_dir


class EmbeddingSettings(BaseModel):
    """Which embedder builds vectors (see README, "The local embedding model").

    `local` is the offline English-first MiniLM; `multilingual` the offline multilingual-e5-small
    (Linux x86_64, ~6x the CPU); `openai` any compatible endpoint; `hashing` a test-only embedder.
    """

    provider: Literal["local", "multilingual", "openai", "hashing"] = "local"
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    dimensions: int | None = None
    batch_size: int = 32
    # `local` only. `int8`: queries (not the stored vectors) run through the int8-activation
    # variant of the model, ~2.5x less CPU per query embedding; LoCoMo R@10 +0.002, but on the
    # precision set one unrelated query of 36 gets a hit (0.97 -> 0.94), so it is not the
    # default (int8_queries.py; docs/benchmarks.md, "REST search CPU by stage"). Needs `onnx`.
    query_activations: Literal["int8", "float"] = "float"


class LLMSettings(BaseModel):
    """Optional OpenAI-compatible LLM for summaries, insight extraction and query expansion."""

    enabled: bool = False
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    daily_token_cap: int = Field(default=200_000, ge=0)
    # US dollars per UTC day across every feature; 0 = no cost cap (the token cap still holds).
    daily_cost_cap: float = Field(default=0.0, ge=0.0)
    # Prices in US dollars per million tokens, for the usage ledger's cost column.
    prompt_price_per_million: float = Field(default=0.15, ge=0.0)
    completion_price_per_million: float = Field(default=0.60, ge=0.0)
    timeout_seconds: float = 60.0


class SearchSettings(BaseModel):
    """Hybrid search knobs (see docs/ARCHITECTURE.md, search)."""

    default_limit: int = 10
    # Candidates per leg; 30 rather than 50 costs 0.004 LoCoMo R@10 and saves ~3 ms at 100k.
    candidate_pool: int = 30
    rrf_k: int = 10
    min_raw_results_without_fallback: int = 3
    # Rows BM25 may score per query (bounds latency on huge archives); 0 = score every match.
    keyword_row_budget: int = Field(default=8_000, ge=0)
    # Hits below this calibrated relevance (0–1) are "no close match"; `loose` searches show them.
    # 0.30 is calibrated for the local MiniLM model (docs/ARCHITECTURE.md, "Relevance floor").
    relevance_floor: float = Field(default=0.30, ge=0.0, le=1.0)
    # Each sentence of a message is also searched, told about its writer ("my" → "John's"):
    # built in the background after import (docs/ARCHITECTURE.md, "Sentence keys").
    sentence_keys: bool = True
    # The in-memory exact copy (20k-150k rows) scores in full only this many rows best on its
    # projections (and at least 13 per hit asked for); 0 = the exact bound, same answers, ~1.8 ms
    # more CPU a search at 100k (docs/ARCHITECTURE.md, "Vector search").
    vector_rescore_rows: int = Field(default=400, ge=0)
    # Sentence keys held in memory up to this many (above it LanceDB's index serves their leg).
    # A message has ~1.8 keys, so the messages' 150k limit left the keys of a 100k archive to the
    # index: ~10 ms of CPU a search against ~2 ms in memory, for ~2 KB a key while the copy is
    # held (released when idle like the messages' copy; docs/benchmarks.md, "Lead, session 9").
    key_copy_max_rows: int = Field(default=300_000, ge=0)
    # From this many messages their stored vectors are also kept in a memory-mapped float32 file
    # (~1.5 KB a message at 384 dimensions), read instead of LanceDB on the large-archive path;
    # 0 = no file (docs/ARCHITECTURE.md, "Stored vectors from a memory-mapped file").
    vector_file_min_rows: int = Field(default=150_000, ge=0)
    # Past the messages' in-memory limit, which index answers the vector leg: a memory-mapped faiss
    # IVF-SQ8 index built by the background index job (LanceDB's IVF_SQ answers until it is built,
    # and whenever it is unusable), or LanceDB's alone. faiss agreed with the exact search at least
    # as well at 1M (0.840 vs 0.830 identical top 10s) for 0.92-0.97x the CPU a search
    # (docs/benchmarks.md, "1M: a faiss vector leg").
    vector_engine: Literal["lancedb", "faiss"] = "faiss"
    # When `serve` or the app opens a large archive (one with a faiss index or a vector file),
    # its search files (faiss index, SQLite, vector file) are read into the page cache in the
    # background, at most this many MB (and half the memory available); 0 = never. At 1M a
    # search on a cold page cache took ~3x as long (docs/benchmarks.md, "1M: p50 margin").
    warm_up_mb: int = Field(default=4_096, ge=0)


class RetentionRuleSettings(BaseModel):
    """Per-channel retention for the forgetting engine: keep forever or custom thresholds (0–1)."""

    channel: str
    platform: str | None = None
    keep_forever: bool = False
    short_to_mid_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    mid_to_long_threshold: float | None = Field(default=None, ge=0.0, le=1.0)


class ForgettingSettings(BaseModel):
    """Forgetting engine schedule and limits (formula constants live in forgetting/constants.py)."""

    enabled: bool = True
    interval_minutes: int = Field(default=60, ge=1)
    max_candidates_per_tier: int = Field(default=500, ge=3)
    use_llm: bool = True
    retention: list[RetentionRuleSettings] = Field(default_factory=list)
    # A scheduled run that would archive more records than this waits for the user (preview /
    # run / not now) instead of applying; runs the user starts always apply.
    confirm_above_records: int = Field(default=200, ge=0)


class KnowledgeBaseSettings(BaseModel):
    """Knowledge-base limits and retrieval knobs (spec: 1000/200 chunks, 0.7 threshold, 5 hits)."""

    max_file_bytes: int = 100 * 1024 * 1024
    max_zip_entries: int = 10_000
    max_zip_uncompressed_bytes: int = 512 * 1024 * 1024
    max_zip_ratio: float = 200.0
    # A single XML part of an Office/iWork package, inflated (checked before parsing).
    max_xml_part_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    # Cost bound per document: ~2M characters is ~2,500 chunks, a few minutes of embedding on 2 cores.
    max_extracted_chars: int = Field(default=2_000_000, ge=1)
    max_chunks: int = Field(default=4_000, ge=1)
    chunk_size: int = 1000
    chunk_overlap: int = 200
    similarity_threshold: float = 0.7
    default_limit: int = 5
    insert_batch_size: int = 1000
    # Keyword (BM25) matches join the threshold-filtered vector hits; false = vector search only.
    hybrid: bool = True


class InsightSettings(BaseModel):
    """Insight generation and ranking. `identities` are the names "me" goes by in chats (open loops)."""

    identities: list[str] = Field(default_factory=list)
    timezone: str = "UTC"
    frequency_max_count: int = 20
    schedule_minutes: int = 60
    use_llm: bool = True
    # New messages one scheduled run analyses; the rest waits for a catch-up run a minute later,
    # so a 100k import never holds the model and the copies for half an hour in one run.
    max_messages_per_run: int = Field(default=2000, ge=100)


class ProjectSettings(BaseModel):
    """A project the user names: its page gathers messages in these channels or with these keywords."""

    title: str = Field(min_length=1, max_length=200)
    keywords: list[str] = Field(default_factory=list)
    # "general" (any platform) or "slack/general"
    channels: list[str] = Field(default_factory=list)


class MemoryFilesSettings(BaseModel):
    """Markdown memory files under `<data dir>/memory` (see docs/memory-files.md)."""

    enabled: bool = True  # the scheduled refresh; `strata files refresh` works either way
    schedule_minutes: int = Field(default=60, ge=1)
    recent_messages: int = Field(default=10, ge=1, le=200)
    # Newest messages per conversation read for its "talked about" words and recent lines.
    topic_window: int = Field(default=150, ge=10, le=5000)
    projects: list[ProjectSettings] = Field(default_factory=list)


RedactClass = Literal["secrets", "cards", "ibans", "emails", "phones"]
REDACT_CLASSES: tuple[RedactClass, ...] = ("secrets", "cards", "ibans", "emails", "phones")


class PrivacySettings(BaseModel):
    """What is masked before text leaves the machine (LLM prompts, MCP and REST results)."""

    # Classes masked in MCP/REST results and LLM prompts; secrets are always masked in prompts.
    redact: list[RedactClass] = Field(default_factory=lambda: list(REDACT_CLASSES))
    # Regions whose national phone formats are recognized; "+<country code>" numbers always are.
    phone_regions: list[str] = Field(default_factory=lambda: ["US"])
    # Whether `reveal=true` on a REST or MCP request may return the verbatim text.
    allow_reveal: bool = False
    # Flag (never block) ingested text that reads like instructions to an AI model.
    flag_injections: bool = True


class ApiSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = 3415
    max_body_bytes: int = 20 * 1024 * 1024
    enabled_in_app: bool = True
    # Which MCP tools `/mcp` and `strata mcp` list: "essential" (a small set for agents' context
    # windows) or "full" (every tool). Unlisted tools stay callable by name in either profile.
    mcp_profile: Literal["essential", "full"] = "essential"
    # Admission control (app/api/admission.py): requests that run at once, requests that may wait
    # for a slot, and how long one waits before a 503 with Retry-After. On 2 cores more running
    # requests only share the CPU; beyond the queue the server answers "busy" at once.
    max_concurrent_requests: int = Field(default=4, ge=1, le=256)
    max_queued_requests: int = Field(default=64, ge=0, le=10_000)
    max_queue_wait_seconds: float = Field(default=5.0, gt=0, le=600)
    # `strata serve` only: searches run in up to this many worker processes under load (one
    # process's GIL held 20 clients to ~1.5 of 2 cores); 0 keeps every search in the server.
    # Each busy worker holds its own model and vector copies (~0.5-0.7 GB at 100k messages) and
    # stops after `search_worker_idle_seconds` without a search (app/api/search_pool.py).
    search_workers: int = Field(default=2, ge=0, le=16)
    search_worker_idle_seconds: float = Field(default=120.0, gt=0)
    # `strata serve` with search workers: the queries of searches waiting in line are embedded
    # together, in one model call of the server's (app/api/query_batch.py), and handed to the
    # workers with the searches. false: each worker embeds its own.
    search_query_batch: bool = True


class ResourceSettings(BaseModel):
    """What a long-running host (desktop app, `strata serve`) gives back while nobody uses it."""

    # After this many seconds without an embedding, the embedding model's session (~170 MB) is
    # dropped; the next query builds it again (~0.3-1 s). 0 keeps it for the life of the process.
    model_idle_seconds: float = Field(default=300.0, ge=0.0)
    # After this many seconds without a search, the in-memory vector copies (~2.4 KB a message,
    # ~240 MB at 100k) are dropped; the next search loads them again (~1.5-2 s of CPU at 100k,
    # docs/benchmarks.md, "Idle memory"). 0 keeps them.
    vector_copy_idle_seconds: float = Field(default=1800.0, ge=0.0)
    # LanceDB's caches of decoded index partitions and file metadata (its defaults: 6 GB and
    # 1 GB). At 1M messages the whole approximate index is ~400 MB, so 512 MB never evicts
    # there; above it, partitions are read again instead of growing the process. They are also
    # dropped with the vector copies after `vector_copy_idle_seconds` without a search.
    vector_index_cache_mb: int = Field(default=512, ge=1)
    vector_metadata_cache_mb: int = Field(default=128, ge=1)
    # Once the model is released or no search ran for `vector_copy_idle_seconds`, give back the
    # library code pages the process ran (~200 MB of its RSS after a search; read back from disk
    # by the next use, docs/benchmarks.md "Idle memory, second pass"). Linux only.
    drop_library_pages: bool = True


class Settings(BaseSettings):
    """All of Strata's configuration, read once in the composition root."""

    model_config = SettingsConfigDict(env_prefix="STRATA_", env_nested_delimiter="__", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    user_id: str = "local"
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    insights: InsightSettings = Field(default_factory=InsightSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    forgetting: ForgettingSettings = Field(default_factory=ForgettingSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    kb: KnowledgeBaseSettings = Field(default_factory=KnowledgeBaseSettings)
    files: MemoryFilesSettings = Field(default_factory=MemoryFilesSettings)
    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    resources: ResourceSettings = Field(default_factory=ResourceSettings)
    max_message_bytes: int = 10 * 1024 * 1024
    # What reaches `<data dir>/logs/strata.log` (and stderr for `serve` and `mcp`): DEBUG, INFO,
    # WARNING, ERROR or CRITICAL; `--log-level` overrides it for one command (app/core/logs/).
    log_level: str = "INFO"

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        return parse_level(value)

    @property
    def layout(self) -> DataLayout:
        return DataLayout(self.data_dir)


def load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """Defaults < data-dir `settings.toml` < environment < explicit overrides.

    An invalid value raises ConfigError naming the setting, where it came from and what it must be.
    """
    try:
        return _load(data_dir, overrides)
    except ValidationError as exc:
        raise _config_error(exc, data_dir) from exc


def _config_error(exc: ValidationError, data_dir: Path | None) -> ConfigError:
    problems = []
    for err in exc.errors()[:3]:
        name = ".".join(str(p) for p in err.get("loc", ()))
        env = "STRATA_" + "__".join(str(p) for p in err.get("loc", ())).upper()
        value = err.get("input")
        problems.append(f"{name} = {value!r}: {err.get('msg', 'invalid')} (settings.toml or {env})")
    where = f"{data_dir / 'settings.toml'}" if data_dir else "settings.toml"
    return ConfigError(
        "invalid setting " + "; ".join(problems),
        hint=f"fix or remove it in {where} (or unset the variable) and run the command again",
    )


def _load(data_dir: Path | None, overrides: dict[str, Any]) -> Settings:
    base = Settings(**({"data_dir": data_dir} if data_dir else {}))
    file_values: dict[str, Any] = {}
    toml_path = base.layout.settings_file
    if toml_path.exists():
        try:
            file_values = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"settings file {toml_path} is not valid TOML: {exc}",
                hint="fix or delete the file; defaults are used when it is absent",
            ) from exc
    # Environment beats the file: let pydantic-settings read env on top of file values.
    merged = {**file_values, **_env_only(), **overrides}
    if data_dir:
        merged["data_dir"] = data_dir
    return Settings(**merged)


def _env_only() -> dict[str, Any]:
    env_settings = Settings()
    explicit = env_settings.model_fields_set
    return {name: getattr(env_settings, name) for name in explicit}
