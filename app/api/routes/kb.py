"""`/api/kb`: upload (multipart), list, read (metadata + full text), delete and search documents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Path, Query, UploadFile
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import get_services
from app.api.schemas import INTEGRAL
from app.bootstrap import Services
from app.core.errors import PayloadTooLarge
from app.services.privacy_results import chunk_items

router = APIRouter(tags=["knowledge base"])
ACTOR = "api"
READ_CHUNK = 1024 * 1024

DocumentId = Annotated[str, Path(min_length=1, max_length=64, description="document id from the listing")]


class DocumentOut(BaseModel):
    """A rag_documents row (the specification's fields, camelCase) without its text."""

    id: str
    fileName: str
    contentType: str
    format: str
    sizeBytes: int
    totalChunks: int
    uploadedAt: str | None
    contentHash: str
    metadata: dict[str, Any] = Field(description="extracted: title, author, pages / slides / sheets …")


class DocumentContentOut(DocumentOut):
    content: str = Field(
        description="the complete extracted text, with [Page n] / [Slide n] / [Sheet x] markers"
    )


class DocumentListOut(BaseModel):
    documents: list[DocumentOut]
    total: int


class DeletedDocumentOut(BaseModel):
    deleted: str
    fileName: str


class KbSearchIn(BaseModel):
    # Strict: JSON types are taken as declared (`true` is not 1, "5" is not 5).
    model_config = ConfigDict(strict=True)
    query: str = Field(..., min_length=1, max_length=4000, description="what to look for")
    limit: Annotated[int, Field(ge=1, le=100), INTEGRAL] | None = Field(
        None, description="hits to return (default 5)"
    )
    documentIds: list[str] | None = Field(None, max_length=1000, description="only search these documents")
    reveal: bool = Field(
        False, description="return detected secrets verbatim (refused unless [privacy] allow_reveal = true)"
    )


class ChunkHitOut(BaseModel):
    chunkId: str
    documentId: str
    fileName: str
    chunkIndex: int
    content: str
    score: float
    similarity: float | None = Field(None, description="cosine similarity; null for keyword-only matches")
    page: int | None = None
    slide: int | None = None
    sheet: str | None = None
    heading: str | None = None


class KbSearchOut(BaseModel):
    query: str
    hits: list[ChunkHitOut]


@router.post(
    "/kb/documents",
    response_model=DocumentOut,
    status_code=201,
    summary="Upload a document (multipart field `file`)",
)
def upload_document(
    file: UploadFile = File(
        ..., description="PDF, DOCX, PPTX, XLSX, CSV, TXT, MD, HTML, Pages/Numbers/Keynote"
    ),
    services: Services = Depends(get_services),
) -> DocumentOut:
    """Parse, chunk, embed and store the file; it is stored completely or not at all.

    400 unreadable (corrupt, encrypted, empty, image-only), 409 duplicate, 413 too large, 415 unsupported.
    """
    name = file.filename or "upload"
    limit = services.knowledge.config.limits.max_file_bytes
    data = bytearray()
    while chunk := file.file.read(READ_CHUNK):
        data.extend(chunk)
        if len(data) > limit:
            raise PayloadTooLarge(
                f"{name}: over the {limit:,} byte limit", hint="raise kb.max_file_bytes in settings.toml"
            )
    info = services.knowledge.add_bytes(bytes(data), name, actor=ACTOR)
    return DocumentOut(**info.to_dict())


@router.get("/kb/documents", response_model=DocumentListOut, summary="List documents, newest first")
def list_documents(
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=2**62),  # SQLite integers are signed 64-bit
    services: Services = Depends(get_services),
) -> DocumentListOut:
    knowledge = services.knowledge
    documents = [DocumentOut(**d.to_dict()) for d in knowledge.list_documents(limit, offset)]
    return DocumentListOut(documents=documents, total=knowledge.count())


@router.get(
    "/kb/documents/{document_id}", response_model=DocumentContentOut, summary="A document with its full text"
)
def get_document(
    document_id: DocumentId,
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
    services: Services = Depends(get_services),
) -> DocumentContentOut:
    # Detected secrets are masked on the way out; the stored text stays verbatim.
    reveal = services.privacy.check_reveal(reveal)
    document = services.knowledge.get(document_id).to_dict()
    return DocumentContentOut(**services.privacy.mask_payload(document, reveal=reveal))


@router.delete(
    "/kb/documents/{document_id}",
    response_model=DeletedDocumentOut,
    summary="Delete a document (file, rows, vectors, keyword entries)",
)
def delete_document(
    document_id: DocumentId, services: Services = Depends(get_services)
) -> DeletedDocumentOut:
    info = services.knowledge.remove(document_id, actor=ACTOR)
    return DeletedDocumentOut(deleted=info.id, fileName=info.file_name)


@router.post("/kb/search", response_model=KbSearchOut, summary="Search document chunks")
def search_documents(body: KbSearchIn, services: Services = Depends(get_services)) -> KbSearchOut:
    """Hybrid (vector ≥ the similarity gate, the spec's 0.7 mapped to the active model, + keyword)
    search; default limit 5. `similarity` is the raw cosine whenever the chunk has a vector."""
    reveal = services.privacy.check_reveal(body.reveal)
    hits = services.knowledge.search(body.query, body.limit, body.documentIds)
    # Each chunk is masked as it reads in its document: a secret cut by a chunk edge goes too.
    items = chunk_items(services.privacy, services.knowledge, hits, reveal=reveal)
    return KbSearchOut(query=body.query, hits=[ChunkHitOut(**item) for item, _masked in items])
