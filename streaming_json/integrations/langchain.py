"""LangChain and LangGraph: live tool calls from ``AIMessageChunk``\\ s, and LangChain's streaming output parsers,
each piece read once.

- :class:`~streaming_json.integrations.LangChainToolCalls` reads the chunks of ``model.stream()``/``astream()``,
  their dict form, and LangGraph's ``stream_mode="messages"`` parts. It imports no LangChain.
- ``JsonOutputParser`` (also as ``SimpleJsonOutputParser``), ``JsonOutputToolsParser``, ``JsonOutputKeyToolsParser``
  and ``PydanticToolsParser`` are LangChain's parsers of the same names and fields, for ``model | parser`` chains: a
  user changes one import line, and each yields what LangChain's yields. They are LangChain ``Runnable``\\ s,
  so the first use of one of these names imports ``langchain_core`` (the ``langchain`` extra:
  ``pip install 'langchain-core>=1.0'``).

::

    from streaming_json.integrations.langchain import JsonOutputToolsParser, LangChainToolCalls

    tool_calls = LangChainToolCalls()
    for call in tool_calls.stream(model.bind_tools([write_file]).stream("Write hello.py")):
        show(call.name, call.arguments)

    chain = model.bind_tools([write_file]) | JsonOutputToolsParser()
    for calls in chain.stream("Write hello.py"):
        show(calls)  # [{"args": {...}, "type": "write_file"}], as LangChain's parser gives them
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._langchain_messages import LangChainToolCalls

if TYPE_CHECKING:  # made on first use (below): they import LangChain
    from ._langchain_parsers import (
        JsonOutputKeyToolsParser,
        JsonOutputParser,
        JsonOutputToolsParser,
        PydanticToolsParser,
        SimpleJsonOutputParser,
    )

__all__ = [
    "LangChainToolCalls",
    "JsonOutputParser",
    "SimpleJsonOutputParser",
    "JsonOutputToolsParser",
    "JsonOutputKeyToolsParser",
    "PydanticToolsParser",
]

_RUNNABLES = frozenset(__all__[1:])


def __getattr__(name: str) -> Any:
    """The output parsers, made on first use: they subclass LangChain's, so they import it."""
    if name not in _RUNNABLES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from . import _langchain_parsers
    except ImportError as error:
        raise ImportError(
            f"streaming_json.integrations.langchain.{name} is a LangChain output parser and needs langchain-core: "
            "pip install 'langchain-core>=1.0' (the package's langchain extra)"
        ) from error
    value = getattr(_langchain_parsers, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RUNNABLES)
