"""`/api/files`: list, read, search and write the markdown memory files, and regenerate them.

Reads are masked like every result an agent may see (`reveal=true` under `[privacy] allow_reveal`);
a write that would put masked placeholders over the stored secrets is refused.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, Field

from app.api.deps import get_services
from app.bootstrap import Services
from app.core.errors import NotFound
from app.core.memory_files.store import MAX_FILE_BYTES, MemoryFile

router = APIRouter(tags=["memory files"])

# The schema states what a valid path looks like (a known folder, no hidden or `..` parts, no
# backslashes or control characters), so anything it accepts is either found or a 404.
PATH_PATTERN = r"^(chats|channels|people|projects|notes|strategy)(/[^/\x00-\x1f\\.][^/\x00-\x1f\\]*)+$"
Folder = Literal["people", "chats", "channels", "projects", "notes", "strategy"]
FilePath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=300,
        pattern=PATH_PATTERN,
        description="path inside the memory folder, e.g. people/anna.md",
    ),
]


class FileInfoOut(BaseModel):
    path: str
    folder: str
    title: str
    size: int
    modified_ns: int


class FileListOut(BaseModel):
    files: list[FileInfoOut]
    total: int


class FileOut(BaseModel):
    path: str
    title: str
    version: str = Field(description="send it back as `version` in PUT to detect concurrent edits")
    user_owned: bool
    text: str
    masked: bool = Field(
        False,
        description="detected secrets in `text` were replaced by placeholders; writing this text back is "
        "refused (read with reveal=true to edit)",
    )

    @classmethod
    def of(cls, found: MemoryFile, services: Services, *, reveal: bool = False) -> FileOut:
        text = found.text if reveal else services.privacy.mask(found.text) or ""
        title = found.title if reveal else services.privacy.mask(found.title) or ""
        return cls(
            path=found.path,
            title=title,
            version=found.version,
            user_owned=found.user_owned,
            text=text,
            masked=text != found.text or title != found.title,
        )


class FileIn(BaseModel):
    text: str = Field(max_length=MAX_FILE_BYTES, description="the whole file, UTF-8 markdown")
    version: str | None = Field(
        None,
        max_length=64,
        description="the `version` you read; if the file changed since, your text is kept as a "
        ".conflict copy and the answer is 409",
    )


class SnippetOut(BaseModel):
    line: int
    text: str


class FileHitOut(BaseModel):
    path: str
    title: str
    score: float
    snippets: list[SnippetOut]
    modified_ns: int
    masked: bool = False


class FileSearchOut(BaseModel):
    query: str
    hits: list[FileHitOut]


class RefreshIn(BaseModel):
    path: str | None = Field(
        None, max_length=300, pattern=PATH_PATTERN, description="one page; omit for every page"
    )


class RefreshOut(BaseModel):
    pages: int
    counts: dict[str, int]
    changed: list[str]
    left_alone: list[dict[str, str]]
    stale: list[str]
    seconds: float
    notes: list[str]


@router.get("/files", response_model=FileListOut, summary="List memory files")
def list_files(
    dir: Folder | None = Query(None, description="only this folder"),
    services: Services = Depends(get_services),
) -> FileListOut:
    files = services.files.list_files(dir)
    return FileListOut(files=[FileInfoOut(**f) for f in files], total=len(files))


@router.get("/files/search", response_model=FileSearchOut, summary="Search memory files")
def search_files(
    q: str = Query(
        ..., min_length=1, max_length=500, pattern=r"\S", description="words; quoted phrases stay whole"
    ),
    dir: Folder | None = Query(None, description="only this folder"),
    limit: int = Query(20, ge=1, le=200),
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
    services: Services = Depends(get_services),
) -> FileSearchOut:
    """Case-insensitive full text over every file; files edited on disk are re-read first."""
    reveal = services.privacy.check_reveal(reveal)  # refused before any work when not allowed
    hits = [h.to_dict() for h in services.files.search(q, folder=dir, limit=limit)]
    # Lines are masked one by one, as `search_memory_files` does; `masked` marks a hit that changed.
    out = [services.privacy.outgoing(h, text=None, reveal=reveal) for h in hits]
    return FileSearchOut(query=q, hits=[FileHitOut(**h) for h in out])


@router.post("/files/refresh", response_model=RefreshOut, summary="Regenerate memory files")
def refresh_files(body: RefreshIn | None = None, services: Services = Depends(get_services)) -> RefreshOut:
    report = services.files.refresh(body.path if body else None)
    return RefreshOut(**report.to_dict())


@router.get("/files/{path:path}", response_model=FileOut, summary="Read one memory file")
def read_file(
    path: FilePath,
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
    services: Services = Depends(get_services),
) -> FileOut:
    """Detected secrets are masked unless `reveal=true` is allowed; edit from a revealed read."""
    reveal = services.privacy.check_reveal(reveal)
    return FileOut.of(services.files.read(path), services, reveal=reveal)


@router.put("/files/{path:path}", response_model=FileOut, summary="Write one memory file")
def write_file(
    path: FilePath,
    body: FileIn,
    reveal: bool = Query(False, description="answer verbatim (needs [privacy] allow_reveal = true)"),
    services: Services = Depends(get_services),
) -> FileOut:
    """notes/ and strategy/ take any text; generated pages only changes outside their generated block.

    Text holding a placeholder (`[SECRET:…]`, `[EMAIL]`, …) the stored file does not hold verbatim
    is refused with 409: it came from a masked read and would overwrite the user's secrets.
    The answer is masked like a read unless `reveal=true` (an editor keeps its verbatim buffer).
    """
    reveal = services.privacy.check_reveal(reveal)
    try:
        stored: str | None = services.files.read(path).text
    except NotFound:
        stored = None
    services.privacy.check_no_new_placeholders(path, body.text, stored)
    return FileOut.of(
        services.files.write(path, body.text, expected_version=body.version), services, reveal=reveal
    )
