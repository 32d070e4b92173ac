"""LLM values and protocols: a raw chat transport (`ChatModel`) and the guarded seam features use (`LLM`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

# Room reserved for the model's answer when checking the cap before a call.
DEFAULT_OUTPUT_BUDGET = 800


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What goes to the endpoint: already redacted and fenced by the seam."""

    system: str
    user: str
    schema: dict[str, Any] | None = None  # a JSON schema: structured output when the server supports it
    schema_name: str = "answer"
    json_mode: bool = True  # without a schema: ask for any JSON object


@dataclass(frozen=True, slots=True)
class ChatReply:
    content: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    usage_reported: bool  # False: the server sent no usage, the seam's estimate was recorded


class ChatModel(Protocol):
    """A transport to one chat endpoint; raises only `LLMError` subclasses."""

    model: str

    def complete(self, request: ChatRequest) -> ChatReply: ...


class LLM(Protocol):
    """What features call. `data` is untrusted message text: it is redacted and fenced as quoted data."""

    model: str

    def chat_json(
        self,
        feature: str,
        *,
        instructions: str,
        data: str,
        schema: dict[str, Any] | None = None,
        schema_name: str = "answer",
        json_mode: bool = True,
    ) -> ChatReply: ...

    def count_tokens(self, text: str) -> int: ...


def estimate_tokens(text: str) -> int:
    """A deliberately high estimate (no tokenizer download): ~3 UTF-8 bytes per token.

    BPE tokenizers average ~4 bytes per token on English and fewer on other scripts, so this
    over-counts a little, which is the safe side for a cap checked before the call.
    """
    return math.ceil(len(text.encode("utf-8")) / 3) + 4 if text else 0
