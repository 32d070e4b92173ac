"""Strata errors → MCP tool errors, by type: the model reads `code: message (hint)` and can react."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from app.core.errors import StrataError

F = TypeVar("F", bound=Callable[..., Any])


def tool_error_text(exc: StrataError) -> str:
    text = f"{exc.code}: {exc.message}"
    return f"{text} ({exc.hint})" if exc.hint else text


def strata_tool(fn: F) -> F:
    """Wrap a sync tool so expected Strata errors reach the client as readable tool errors.

    Anything else stays an unexpected error: the SDK logs it and tells the client nothing internal.
    `functools.wraps` keeps the signature the SDK reads to build the input schema.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StrataError as exc:
            raise ToolError(tool_error_text(exc)) from exc

    return wrapper  # type: ignore[return-value]
