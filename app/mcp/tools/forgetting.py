"""MCP tool `forgetting_status`: when the forgetting engine last ran, what it did, and what waits."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from app.core.errors import StrataError

STATUS_DESCRIPTION = """Status of the user's forgetting engine, which keeps memory tidy: records past
their tier's age (short after 7 days, mid after 90) are promoted when valuable, otherwise archived
behind a summary. Returns whether it is enabled, the schedule (next run), the last run with counts
per tier (evaluated, promoted, archived, summarized, skipped), records waiting, and the summary count.
`pendingPlan` is set when a scheduled run would archive many records and waits for the user.
Use it to explain why an old message shows `content: null` (archived) or to say when cleanup runs."""


def compact_run(run: dict[str, Any] | None) -> dict[str, Any] | None:
    if run is None:
        return None
    keep = ("runId", "status", "trigger", "startedAt", "durationMs", "totals", "message")
    out = {k: run[k] for k in keep if run.get(k) not in (None, "")}
    if run.get("errors"):
        out["errors"] = len(run["errors"])
    return out


def register(server: MCPServer, services: Any) -> None:
    forgetting = services.forgetting

    def forgetting_status(
        user_id: Annotated[
            str | None, Field(max_length=64, description="default: the configured user")
        ] = None,
    ) -> dict[str, Any]:
        configured = services.settings.user_id
        if user_id not in (None, "", configured):  # one user per server: others are not found
            raise ToolError(f"not_found: no user {user_id!r} on this server (it serves {configured!r})")
        try:
            status = forgetting.status(user_id or None)
        except StrataError as exc:
            raise ToolError(f"{exc.code}: {exc}") from exc
        return {
            "enabled": status["enabled"],
            "intervalMinutes": status["intervalMinutes"],
            "schedulerActive": status["scheduler"]["active"],
            "nextRun": status["nextRun"],
            "lastRun": compact_run(status["lastRun"]),
            "pendingCandidates": status["pendingCandidates"],
            "pendingPlan": status.get("pendingPlan"),
            "summaries": status["summaries"],
            "lockHeld": bool(status["lock"] and status["lock"]["active"]),
        }

    server.add_tool(
        forgetting_status,
        description=STATUS_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
