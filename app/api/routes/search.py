"""`/api/search`: hybrid search, the same call and hits as `strata search --json`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.api.deps import services_of
from app.api.schemas import TIME_SCHEMA, SearchIn, SearchOut
from app.bootstrap import Services
from app.core.search.filters import filters_from, sources_from

router = APIRouter(tags=["search"])


def _search(services: Services, body: SearchIn) -> SearchOut:
    filters = filters_from(body.model_dump(exclude={"loose", "documents", "insights", "reveal"}))
    reveal = services.privacy.check_reveal(body.reveal)
    include = sources_from(documents=body.documents, insights=body.insights)
    outcome = services.memory.search_outcome(
        body.query, filters, body.limit, include=include, loose=body.loose
    )
    # Results may go to an agent's cloud context: detected secrets are masked unless revealed.
    hits = [services.privacy.outgoing(h.to_dict(), text=h.content, reveal=reveal) for h in outcome.hits]
    return SearchOut(query=body.query, hits=hits, **outcome.to_dict())  # type: ignore[arg-type]


async def _answer(request: Request, services: Services, body: SearchIn) -> Any:
    """In a search worker process when `strata serve` has them (search_pool.py: the same JSON
    bytes), else on a thread of this process."""
    pool = getattr(request.app.state, "search_pool", None)
    if pool is None:
        return await run_in_threadpool(_search, services, body)
    answer = await pool.answer(body, lambda: _search(services, body))
    return Response(content=answer, media_type="application/json") if isinstance(answer, bytes) else answer


# Async handlers: the search itself runs on a worker thread or in a worker process (_answer), so
# the event loop is not held; FastAPI then also checks the response on the loop, not on a thread.
@router.get("/search", response_model=SearchOut, summary="Search memory (query string)")
async def search_get(
    request: Request,
    q: str = Query(
        ..., min_length=1, max_length=4000, description="what to look for; 'last week' etc. filter"
    ),
    limit: int = Query(10, ge=1, le=200),
    platform: list[str] | None = Query(None, description="only these platforms (repeatable)"),
    channel: list[str] | None = Query(None, description="only these channels (repeatable)"),
    person: list[str] | None = Query(None, description="only these people (repeatable)"),
    since: str | None = Query(None, description="ISO date/time or Unix ms", json_schema_extra=TIME_SCHEMA),
    until: str | None = Query(
        None,
        description="ISO date/time or Unix ms; a bare date means end of day",
        json_schema_extra=TIME_SCHEMA,
    ),
    loose: bool = Query(False, description="show the nearest hits even when none is a close match"),
    documents: bool = Query(False, description="also search knowledge-base documents (one ranking)"),
    insights: bool = Query(False, description="also search insights (one ranking)"),
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
    services: Services = Depends(services_of),
) -> Any:
    body = SearchIn(
        query=q,
        limit=limit,
        platform=platform,
        channel=channel,
        person=person,
        since=since,
        until=until,
        loose=loose,
        documents=documents,
        insights=insights,
        reveal=reveal,
    )
    return await _answer(request, services, body)


@router.post("/search", response_model=SearchOut, summary="Search memory (JSON body)")
async def search_post(request: Request, body: SearchIn, services: Services = Depends(services_of)) -> Any:
    return await _answer(request, services, body)
