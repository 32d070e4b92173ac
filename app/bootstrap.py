"""Composition root: read settings once, build every service, hand them to a shell."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from app.core.access import AccessTracker
from app.core.blas_threads import limit_blas_threads
from app.core.clock import Clock, SystemClock, iso
from app.core.embeddings.base import Embedder
from app.core.embeddings.factory import build_embedder
from app.core.embeddings.switchable import SwitchableEmbedder
from app.core.events import EventBus
from app.core.index.ann import INDEX_MIN_ROWS
from app.core.index.key_index import MessageKeys
from app.core.index.keyword_format import KeywordReindex
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams
from app.core.index.maintenance import KindReport, Progress
from app.core.index.message_kind import KEYWORD_FORMAT, keyword_body
from app.core.index.state import ActiveModel, read_active, write_active
from app.core.llm.guard import GuardedLLM
from app.core.memory_files.store import MemoryFileStore
from app.core.paths import DataLayout
from app.core.processor import Processor
from app.core.search.fusion import FusionConfig
from app.core.search.messages import MessageSearcher
from app.core.search.relevance import relevance_model_for
from app.core.search.search_config import SearchConfig
from app.core.secrets import open_secret_store
from app.core.settings import EmbeddingSettings, Settings, load_settings
from app.core.storage import faults
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.migrate import migrate
from app.core.storage.vectors import VectorStore
from app.services.brief_service import BriefService
from app.services.connector_service import ConnectorService
from app.services.export_service import ExportService
from app.services.forgetting_service import ForgettingService
from app.services.import_service import ImportService
from app.services.index_service import IndexedKind, IndexService
from app.services.insights_deletion import InsightsDeletion
from app.services.insights_service import INSIGHTS_SOURCE, InsightsService, build_insights_service
from app.services.knowledge_service import DOCUMENTS_SOURCE, KnowledgeService
from app.services.llm import LLMKeys, build_llm
from app.services.memory_files.service import FILES_SOURCE, MemoryFilesService
from app.services.memory_files.sources import contact_infos, insight_items
from app.services.memory_service import MemoryService
from app.services.privacy_service import PrivacyService
from app.services.reembed_service import ReembedService
from app.services.vector_erasure import VectorErasure
from knowledge_base.maintenance import ChunkSource
from knowledge_base.maintenance import repair as kb_repair

log = logging.getLogger(__name__)


@dataclass
class Services:
    """Everything a shell may call, built once per process."""

    settings: Settings
    layout: DataLayout
    clock: Clock
    events: EventBus
    db: Database
    vectors: VectorStore
    keywords: KeywordIndex
    embedder: Embedder
    processor: Processor
    access: AccessTracker
    memory: MemoryService
    forgetting: ForgettingService
    knowledge: KnowledgeService
    imports: ImportService
    insights: InsightsService
    files: MemoryFilesService
    privacy: PrivacyService
    index: IndexService
    reembed: ReembedService
    extras: dict[str, Any] = field(default_factory=dict)
    connectors: ConnectorService | None = None
    llm_keys: LLMKeys | None = None
    exports: ExportService | None = None
    brief: BriefService | None = None
    llm: GuardedLLM | None = None

    def stats(self) -> dict[str, Any]:
        """`memory.stats()` plus how far the background keyword reindex has come (`keyword_reindex`):
        the figures `strata stats --json`, `GET /api/stats` and the MCP `memory_stats` share."""
        data = self.memory.stats()
        keyword_format = self.index.keyword_format()
        if keyword_format is not None:
            data["keyword_reindex"] = keyword_format.to_dict()
        return data

    def close(self) -> None:
        if self.connectors is not None:
            self.connectors.stop_live()
        if self.memory.keys is not None:
            self.memory.keys.close()
        self.processor.backlog.close()
        self.index.close()  # a running keyword reindex stops after its batch (it resumes later)
        self.access.close()
        self.memory.searcher.close()
        self.db.dispose()


def build_services(
    settings: Settings | None = None,
    *,
    data_dir: Path | None = None,
    clock: Clock | None = None,
    embedder: Embedder | None = None,
    repair: bool = False,
) -> Services:
    """Open (creating if needed) the data dir named by settings and wire the services.

    `clock` and `embedder` are injectable for tests and benchmarks; the defaults are the
    wall clock and the embedder the settings name. Index repair is not part of opening (a
    read command must never do it on its path): `strata doctor --repair` and the scheduler
    host's background job run it; `repair=True` runs it here, for tests and tools.
    """
    settings = settings or load_settings(data_dir)
    # Searches run side by side on the cores; BLAS's spinning workers per product only burn them.
    limit_blas_threads()
    try:
        layout = settings.layout.ensure()
    except OSError as exc:
        raise faults.from_os_error(exc, settings.layout.root) or faults.unusable(
            exc, settings.layout.root
        ) from exc
    clock = clock or SystemClock()
    events = EventBus()
    db = Database(layout.database)
    migrate(db)
    vectors = VectorStore(
        layout.vectors,
        index_cache_mb=settings.resources.vector_index_cache_mb,
        metadata_cache_mb=settings.resources.vector_metadata_cache_mb,
        vector_files=settings.search.vector_file_min_rows > 0,
    )
    keywords = KeywordIndex()
    leases = WriterLeases(db, clock)
    secrets = open_secret_store(layout.secrets_file)
    llm_keys = LLMKeys(secrets)
    if embedder is None:
        # The OpenAI-compatible endpoint has one key (Settings, `strata llm set-key` or the env).
        api_key = llm_keys.resolve() if settings.embedding.provider == "openai" else None
        embedder = build_embedder(settings.embedding, api_key=api_key)
    configured = embedder
    # Search keeps the model it has vectors for until a re-embed job completes (reembed_service).
    active = SwitchableEmbedder(_active_embedder(db, settings, configured, llm_keys, clock))
    embedder = active
    processor = Processor(
        db,
        vectors,
        embedder,
        clock,
        keywords=keywords,
        events=events,
        max_message_bytes=settings.max_message_bytes,
        flag_injections=settings.privacy.flag_injections,
        leases=leases,
    )
    access = AccessTracker(db, clock)
    # One set of fusion parameters for every kind of the corpus.
    # The cosine scale follows the model whose vectors search uses (relevance.COSINE_SCALES).
    fusion = FusionParams(
        FusionConfig(relevance=relevance_model_for(embedder.model_id), floor=settings.search.relevance_floor)
    )
    llm = build_llm(settings, llm_keys, db, clock) if settings.llm.enabled else None
    # Sentence keys of messages: built in the background after the messages' own vectors
    # (off: neither built nor searched, and doctor lists no such kind).
    keys = (
        MessageKeys(db, vectors, embedder, keywords, clock, leases=leases, messages=processor.backlog)
        if settings.search.sentence_keys
        else None
    )
    # The exact copies' projected scan (vector_cache.py): how many rows each scores in full.
    for corpus in (processor.corpus, keys.corpus if keys is not None else None):
        if corpus is not None:
            corpus.rescore_rows = settings.search.vector_rescore_rows
    # The messages' stored vectors in a memory-mapped file past this size (vector_file.py).
    processor.corpus.vector_file_min_rows = settings.search.vector_file_min_rows
    processor.corpus.vector_engine = settings.search.vector_engine  # the messages' leg only
    if keys is not None:
        keys.corpus.max_cached_rows = settings.search.key_copy_max_rows
        # A large key copy (~180k keys at 100k messages) takes ~1.5 s to load: the first search
        # after start or idle release uses the keys' LanceDB index instead of waiting for it.
        keys.corpus.background_load_rows = INDEX_MIN_ROWS
    searcher = MessageSearcher(
        db,
        processor.corpus,
        embedder,
        clock,
        access=access,
        keys=keys.corpus if keys is not None else None,
        config=SearchConfig(
            candidate_pool=settings.search.candidate_pool,
            rrf_k=settings.search.rrf_k,
            keyword_row_budget=settings.search.keyword_row_budget or None,
            fusion=fusion,
        ),
    )
    memory = MemoryService(
        db,
        processor,
        searcher,
        clock,
        user_id=settings.user_id,
        events=events,
        min_raw_results_without_fallback=settings.search.min_raw_results_without_fallback,
    )
    forgetting = ForgettingService(
        db,
        processor,
        vectors,
        embedder,
        clock,
        user_id=settings.user_id,
        settings=settings.forgetting,
        llm=settings.llm,
        llm_factory=llm.prepare if llm is not None else None,
        keywords=keywords,
        rrf_k=settings.search.rrf_k,
        leases=leases,
        fusion=fusion,
    )
    # Summaries answer when raw hits are few (spec: minRawResultsWithoutFallback).
    memory.fallback_sources.append(forgetting.search_summaries)
    memory.keys = keys
    if keys is not None:
        memory.deletion.hooks.append(keys.on_messages_deleted)
        forgetting.runner.archive_hooks.append(keys.on_messages_archived)
        forgetting.runner.restore_hooks.append(keys.on_messages_restored)

    # A deleted message's faiss codes go before LanceDB's purge (search.vector_engine): in a
    # command at once, in a host on the erasure worker (rewriting the index takes ~9 s at 1M).
    def forget_faiss(_user: str, erased: list[Any]) -> dict[str, int]:
        keys = [str(r.id) for r in erased]
        erasure = memory.deletion.erasure
        if erasure is None:
            processor.corpus.forget_faiss(keys)
        else:
            erasure.defer(lambda: processor.corpus.forget_faiss(keys))
        return {}  # nothing the deletion report names: the codes are derived data

    memory.deletion.hooks.append(forget_faiss)
    # Deleting a message also rewrites the summaries that quoted it (deletion means gone).
    memory.deletion.hooks.append(forgetting.on_messages_deleted)
    knowledge = KnowledgeService.build(
        settings, db, vectors, keywords, embedder, clock, events=events, leases=leases, fusion=fusion
    )
    memory.extra_sources[DOCUMENTS_SOURCE] = knowledge.memory_hits  # unified search: include=["documents"]
    memory.authorless_sources.add(DOCUMENTS_SOURCE)  # a name in the query says whose messages
    insights = build_insights_service(
        settings,
        db=db,
        vectors=vectors,
        embedder=embedder,
        keywords=keywords,
        clock=clock,
        events=events,
        llm=llm,
        leases=leases,
        fusion=fusion,
    )
    memory.extra_sources[INSIGHTS_SOURCE] = insights.memory_hits  # unified search: include=["insights"]
    index = build_index_service(db, leases, processor, forgetting, insights, knowledge, keys)
    # Deleted vectors leave LanceDB's files at the deletion (vector_erasure.py); the tables it touches.
    index.erasure = memory.deletion.erasure = VectorErasure(db, clock)
    index.erasure.tables += [
        lambda: processor.collection,
        lambda: forgetting.summaries.corpus.collection,
        lambda: insights.index.corpus.collection,
    ]
    if keys is not None:
        index.erasure.tables.append(lambda: keys.corpus.collection)
    reembed = ReembedService(
        index,
        active,
        configured,
        settings.embedding.model_dump(),
        clock,
        user_id=settings.user_id,
    )
    connectors = ConnectorService(
        db,
        memory,
        secrets,
        clock,
        user_id=settings.user_id,
        events=events,
    )
    memory.person_aliases = connectors.person_aliases
    privacy = PrivacyService(settings, db, clock)
    files = MemoryFilesService(
        db,
        MemoryFileStore(layout.memory),
        clock,
        user_id=settings.user_id,
        settings=settings.files,
        me=insights.me,
        # build_insights_service has already checked the zone name
        tz=ZoneInfo(settings.insights.timezone),
        contacts=contact_infos(connectors.identities),
        items=insight_items(db, settings.user_id, clock),
        # Generated pages quote messages: secrets (and the configured classes) are masked as in
        # agent-facing output; the stored messages stay verbatim.
        mask=lambda text: privacy.mask(text) or "",
        events=events,
    )
    memory.extra_sources[FILES_SOURCE] = files.hits  # unified search: include=["files"]
    services = Services(
        settings=settings,
        layout=layout,
        clock=clock,
        events=events,
        db=db,
        vectors=vectors,
        keywords=keywords,
        embedder=embedder,
        processor=processor,
        access=access,
        memory=memory,
        forgetting=forgetting,
        knowledge=knowledge,
        imports=ImportService(memory, user_id=settings.user_id),
        insights=insights,
        files=files,
        index=index,
        reembed=reembed,
        connectors=connectors,
        llm_keys=llm_keys,
        llm=llm,
        privacy=privacy,
        exports=ExportService(
            db, knowledge, settings, clock, user_id=settings.user_id, layout=layout, vectors=vectors
        ),
    )
    # Deleting a message also removes the insights that cite it (their text quotes it).
    memory.deletion.hooks.append(InsightsDeletion(db, services.insights.index, keywords, clock))
    # Last, so pages are rewritten after the insights and summaries that quoted the messages are gone.
    memory.deletion.hooks.append(files.on_messages_deleted)
    services.brief = build_brief_service(services)
    if repair and not db.read_only:  # on a full disk there is no room to repair; reads still work
        index.run_repair_job()
    return services


def build_brief_service(services: Services) -> BriefService:
    """The wake-up brief reads insights, message activity and newly added documents."""
    knowledge = services.knowledge

    def documents_since(since: int) -> list[dict[str, Any]]:
        fresh = [d for d in knowledge.list_documents(limit=50) if d.uploaded_at >= since]
        return [{"id": f"document:{d.id}", "name": d.file_name, "at": iso(d.uploaded_at)} for d in fresh]

    return BriefService(
        services.db,
        services.clock,
        user_id=services.settings.user_id,
        insights=services.insights,
        identities=services.insights.me,
        documents_since=documents_since,
    )


def _active_embedder(
    db: Database, settings: Settings, configured: Embedder, keys: LLMKeys, clock: Clock
) -> Embedder:
    """The embedder of the model search uses: the configured one, unless a switch is pending."""
    with db.read() as session:
        state = read_active(session)
    current = ActiveModel(configured.model_id, configured.dimensions, settings.embedding.model_dump())
    if state is None:  # first start (or a data dir from before index_state): the configured model
        with db.write() as session:
            write_active(session, current, clock.now_ms())
        return configured
    if (state.model_id, state.dimensions) == (current.model_id, current.dimensions):
        return configured
    try:
        previous = EmbeddingSettings.model_validate(state.embedding)
        api_key = keys.resolve() if previous.provider == "openai" else None
        rebuilt = build_embedder(previous, api_key=api_key)
        if (rebuilt.model_id, rebuilt.dimensions) == (state.model_id, state.dimensions):
            log.info("embedding model changed to %s; searching with %s until `strata reembed` completes",
                     configured.model_id, state.model_id)  # fmt: skip
            return rebuilt
    except Exception:  # the old model cannot be built here (missing key, files): switch now
        log.warning("cannot build the previous embedding model %s", state.model_id, exc_info=True)
    # Without the old model, search uses the configured one at once; repair refills its vectors.
    with db.write() as session:
        write_active(session, current, clock.now_ms())
    return configured


def build_index_service(
    db: Database,
    leases: WriterLeases,
    processor: Processor,
    forgetting: ForgettingService,
    insights: InsightsService,
    knowledge: KnowledgeService,
    keys: MessageKeys | None,
) -> IndexService:
    """Every kind of the indexed corpus, for doctor and the background repair."""
    kb = knowledge.kb

    def repair_messages(full: bool, progress: Progress | None) -> KindReport:
        report = processor.repair(full=full, progress=progress).kind
        assert report is not None
        return report

    def repair_chunks(full: bool, progress: Progress | None) -> KindReport:
        report = kb_repair(kb, full=full, progress=progress).kind
        assert report is not None
        return report

    kinds = [
        IndexedKind("messages", processor.corpus, processor.source, repair_messages),
        IndexedKind("summaries", forgetting.summaries.corpus, forgetting.summaries.source),
        IndexedKind("insights", insights.index.corpus, insights.index.source),
        IndexedKind("documents", kb.corpus, ChunkSource(), repair_chunks),
    ]
    if keys is not None:
        kinds.append(IndexedKind("sentence keys", keys.corpus, keys.source, keys.repair))
    # Existing messages' keyword entries catch up once with the body format (keyword_format.py).
    reindex = KeywordReindex(
        db, leases.clock, processor.corpus.keywords, keyword_body, KEYWORD_FORMAT, leases=leases
    )
    reindex.stamp_new_archive()  # a new data dir: its entries are all written in the current format
    return IndexService(db, leases, kinds, keyword_reindex=reindex)
