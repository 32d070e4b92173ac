"""The knowledge base's knobs as one frozen value, built from settings in the composition root."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.index.corpus import KindSpec
from app.core.settings import KnowledgeBaseSettings
from knowledge_base.guards import Limits

CHUNK_KIND = "chunk"  # keyword-index kind and vector-collection prefix
VECTOR_COLUMNS = ("user_id", "document_id")
CHUNK_SPEC = KindSpec(
    kind=CHUNK_KIND,
    collection=CHUNK_KIND,
    columns=VECTOR_COLUMNS,
    # Join rag_chunks only to filter by document: on large indexes the join costs as much as the match.
    keyword_join="JOIN rag_chunks c ON c.id = keyword_fts.ref",
    keyword_columns={"document_id": "c.document_id"},
)


@dataclass(frozen=True, slots=True)
class KbConfig:
    user_id: str = "local"
    limits: Limits = field(default_factory=Limits)
    chunk_size: int = 1000
    chunk_overlap: int = 200
    similarity_threshold: float = 0.7
    default_limit: int = 5
    max_limit: int = 100
    insert_batch_size: int = 1000
    # Chunks are long (~250 tokens): ONNX's activations grow with batch x length², and its arena
    # keeps the peak. 8 at a time measured 645 MB peak RSS vs 926 MB at 64, and was not slower.
    embed_batch_size: int = 8
    hybrid: bool = True
    candidate_pool: int = 50
    rrf_k: int = 10

    @classmethod
    def from_settings(cls, kb: KnowledgeBaseSettings, *, user_id: str, rrf_k: int = 10) -> KbConfig:
        return cls(
            user_id=user_id,
            limits=Limits(
                max_file_bytes=kb.max_file_bytes,
                max_zip_entries=kb.max_zip_entries,
                max_zip_uncompressed_bytes=kb.max_zip_uncompressed_bytes,
                max_zip_ratio=kb.max_zip_ratio,
                max_xml_part_bytes=kb.max_xml_part_bytes,
                max_extracted_chars=kb.max_extracted_chars,
                max_chunks=kb.max_chunks,
            ),
            chunk_size=kb.chunk_size,
            chunk_overlap=kb.chunk_overlap,
            similarity_threshold=kb.similarity_threshold,
            default_limit=kb.default_limit,
            insert_batch_size=kb.insert_batch_size,
            hybrid=kb.hybrid,
            rrf_k=rrf_k,
        )
