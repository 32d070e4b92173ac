"""Insight tools for agents: list_insights, get_insight, open_loops, set_insight_state (compact, paged)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from app.bootstrap import Services
from app.core.clock import datetime_to_ms
from app.core.errors import StrataError
from app.mcp.tools.memory import REVEAL

F = TypeVar("F", bound=Callable[..., Any])

LIST_DESCRIPTION = """List insights Strata extracted from the user's chats: decisions, action items
(with owner and due date), deadlines, questions still awaiting an answer, blockers/incidents and
meetings. Ranked by value (how often the user looks at them, freshness, importance/urgency,
favorites). Filter by kind, label (taskLabel such as bug_report, feature_request), importance,
state (active/dormant), status (open/resolved) or lifecycle (open by default; done, dismissed,
snoozed or all); `query` searches by words and meaning instead.
Returns compact items with `id`; call get_insight for details, timeline and evidence message ids.
If `next_offset` is set, call again with it for more."""

GET_DESCRIPTION = """Read one insight in full: description, details, timeline of events, evidence
(the source message ids, which get_memory can open), importance, urgency, owner, due date, value
score, trend. Reading it counts as a view, which raises its ranking."""

LOOPS_DESCRIPTION = """The user's open loops: their own open action items, things they are waiting
on from others (tasks they asked for, their unanswered questions), and questions addressed to them
that nobody answered — each list ordered by value. Use it for "what do I owe / what is pending"."""

STATE_DESCRIPTION = """Close the loop on an insight for the user: state "done" (it happened),
"dismissed" (not worth acting on), "snoozed" (hidden until `until`, an ISO date-time) or "open"
(back on the list). Done, dismissed and snoozed items leave the default list and the open loops.
Only do this when the user asked for it or clearly said the item is finished."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _tool(fn: F) -> F:
    """Strata errors reach the model as readable tool errors (`code: message (hint)`)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StrataError as exc:
            text = f"{exc.code}: {exc.message}"
            raise ToolError(f"{text} ({exc.hint})" if exc.hint else text) from exc

    return wrapper  # type: ignore[return-value]


def register(server: MCPServer, services: Services) -> None:
    insights = services.insights

    @_tool
    def list_insights(
        kind: Annotated[
            str | None, Field(description="decision, action_item, deadline, question, blocker, meeting")
        ] = None,
        label: Annotated[str | None, Field(max_length=64, description="taskLabel, e.g. bug_report")] = None,
        importance: Annotated[str | None, Field(description="critical, high, medium or low")] = None,
        state: Annotated[str | None, Field(description="active or dormant")] = None,
        status: Annotated[str | None, Field(description="open or resolved")] = None,
        lifecycle: Annotated[
            str | None, Field(description="open (default), done, dismissed, snoozed or all")
        ] = None,
        query: Annotated[
            str | None, Field(max_length=2000, description="search by words and meaning")
        ] = None,
        sort: Annotated[str, Field(description="score, value, recent, due, importance or urgency")] = "score",
        limit: Annotated[int, Field(ge=1, le=50, description="items per page")] = 10,
        offset: Annotated[int, Field(ge=0, le=450, description="skip this many (paging)")] = 0,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        services.privacy.check_reveal(reveal)
        if query:
            found = insights.search(query, min(offset + limit + 1, 500))[offset:]
        else:
            found = insights.list_insights(
                sort=sort, label=label, importance=importance, state=state, kind=kind, status=status,
                limit=limit + 1, offset=offset, lifecycle_state=lifecycle,
            )  # fmt: skip
        items = [r.to_dict(full=False) for r in found[:limit]]
        for item in items:
            item.pop("scores", None)
        page: dict[str, Any] = {"items": items, "count": len(items)}
        if len(found) > limit:
            page["next_offset"] = offset + limit
        return services.privacy.mask_payload(page, reveal=reveal)  # text from chats: secrets masked

    @_tool
    def get_insight(
        id: Annotated[str, Field(min_length=1, max_length=64, description="insight id")],
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        services.privacy.check_reveal(reveal)
        return services.privacy.mask_payload(insights.get(id).to_dict(), reveal=reveal)

    @_tool
    def open_loops(
        me: Annotated[list[str] | None, Field(max_length=20, description="names the user goes by")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="items per section")] = 10,
        reveal: Annotated[bool, REVEAL] = False,
    ) -> dict[str, Any]:
        services.privacy.check_reveal(reveal)
        return services.privacy.mask_payload(insights.brief(limit, me or None).to_dict(), reveal=reveal)

    @_tool
    def set_insight_state(
        id: Annotated[str, Field(min_length=1, max_length=64, description="insight id")],
        state: Annotated[
            Literal["open", "done", "dismissed", "snoozed"], Field(description="the new lifecycle state")
        ],
        until: Annotated[
            datetime | None, Field(description="snoozed only: when it comes back (ISO 8601, UTC if no zone)")
        ] = None,
    ) -> dict[str, Any]:
        at = None
        if until is not None:
            at = datetime_to_ms(until if until.tzinfo else until.replace(tzinfo=UTC))
        return insights.set_lifecycle(id, state, at).to_dict(full=False)

    server.add_tool(list_insights, description=LIST_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(
        get_insight,
        description=GET_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
    server.add_tool(open_loops, description=LOOPS_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(
        set_insight_state,
        description=STATE_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
