"""What the framework tests share: a sample of the real corpus, and a LangChain chat model that streams scripted
chunks through LangChain's own ``stream()``/``astream()`` (so that the ``chunk_position="last"`` marker, the ids and
the callbacks are LangChain's). Framework imports are slow: only the tests that need one import it."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from .strategies import cut_randomly
from .test_tool_calls import CALLS

# The framework tests run in one worker (`make test` distributes by group): each framework is imported once.
FRAMEWORKS = pytest.mark.xdist_group("frameworks")


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    text: str

    @property
    def arguments(self) -> Any:
        return json.loads(self.text)


def corpus_sample(count: int, seed: int, longest: int = 16_000) -> list[Call]:
    """``count`` calls of the 845, drawn with ``seed`` among those up to ``longest`` characters, the longest of
    those always among them (per-chunk framework work is slow: the sample stays small)."""
    rng = random.Random(seed)
    fitting = [row for row in CALLS if len(row["arguments"]) <= longest]
    chosen = rng.sample(fitting, count - 1) + [max(fitting, key=lambda row: len(row["arguments"]))]
    rng.shuffle(chosen)
    return [Call(f"call_{seed}_{n}", row["name"], row["arguments"]) for n, row in enumerate(chosen)]


def messages_of(calls: Sequence[Call], seed: int) -> list[list[Call]]:
    """The calls grouped as the messages of a model: one to three parallel calls each."""
    rng = random.Random(seed)
    messages, position = [], 0
    while position < len(calls):
        size = rng.randint(1, 3)
        messages.append(list(calls[position : position + size]))
        position += size
    return messages


def pieces_of(text: str, seed: int) -> list[str]:
    """A call's text in the pieces a provider's chunks carry (a few tokens each)."""
    return cut_randomly(text, seed, 3, 12)


def tool_call_chunks(calls: Sequence[Call], seed: int) -> list[dict[str, Any]]:
    """The ``tool_call_chunks`` of one message, one a chunk, as LangChain's OpenAI integration streams them: the
    first of each call with its name, id and ``args=""``, then its arguments in pieces, at the call's index."""
    fragments: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        fragments.append({"name": call.name, "args": "", "id": call.id, "index": index})
        fragments += [
            {"name": None, "args": piece, "id": None, "index": index} for piece in pieces_of(call.text, seed + index)
        ]
    return fragments


def ai_chunks(fragments: Sequence[dict[str, Any]]) -> list[Any]:
    from langchain_core.messages import AIMessageChunk

    return [AIMessageChunk(content="", tool_call_chunks=[fragment]) for fragment in fragments]


def scripted_model(responses: Sequence[Sequence[Any]]) -> Any:
    """A LangChain ``BaseChatModel`` whose n-th call streams the n-th list of ``AIMessageChunk``\\ s (a text reply
    after them), through LangChain's own ``stream()``/``astream()``/``invoke()``."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AIMessageChunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from pydantic import Field

    class ScriptedChatModel(BaseChatModel):
        script: list[Any] = Field(repr=False)  # not in LangChain's serialized model: a run's tracing would show it
        calls: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _next(self) -> list[Any]:
            chunks = self.script[self.calls] if self.calls < len(self.script) else [AIMessageChunk(content="done")]
            self.calls += 1
            return list(chunks)

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            total = None
            for chunk in self._next():
                total = chunk if total is None else total + chunk
            return ChatResult(generations=[ChatGeneration(message=AIMessage(**dict(total or AIMessage(content=""))))])

        def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[Any]:
            for chunk in self._next():
                yield ChatGenerationChunk(message=chunk)

        async def _astream(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> AsyncIterator[Any]:
            for chunk in self._next():
                yield ChatGenerationChunk(message=chunk)

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # LangGraph's ToolNode needs no binding here
            return self

    return ScriptedChatModel(script=[list(response) for response in responses])
