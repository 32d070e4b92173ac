"""A private event loop so async SDKs (discord.py, python-telegram-bot) serve a synchronous fetch."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class LoopRunner:
    """Runs coroutines one at a time on a loop owned by one connector fetch.

    The SDK clients bind their HTTP sessions to the loop that created them, so every call of a
    fetch must run on the same loop; `asyncio.run` per call would break that.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()

    def run(self, awaitable: Awaitable[T]) -> T:
        return self._loop.run_until_complete(awaitable)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()
