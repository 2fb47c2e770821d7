"""Live values to a browser: the changes each piece makes, as JSON Patch operations, at the cost of the piece.

- :class:`PatchStream` turns one ``append()``'s changes into RFC 6902 operations (``add``, ``replace``, and an
  ``append`` extension for a string that grew; ``strict=True`` for RFC 6902 alone); :func:`apply_patch` applies them,
  :func:`coalesce` merges them.
- Op streams, one :class:`PatchEvent` at a time (``start``, ``ops``, ``end``), from every source:
  :func:`text_patches` (text pieces), :class:`ArgumentPatches` (one call's arguments, a ``ToolCallArgumentsStream``
  that keeps the operations), :class:`ToolCallPatches` (an SDK's or a framework's tool calls, one op stream per call),
  :class:`OutputPatches` (their structured output), :class:`DocumentPatches` (a document, typed with ``model=``).
- Wire shapes, as server-sent events: :class:`PatchWire` (what ``patches.js``, shipped beside this package, reads),
  :class:`AGUIWire` (AG-UI's ``TOOL_CALL_*``, ``STATE_SNAPSHOT``, ``STATE_DELTA``), :class:`UIMessageWire` (the
  Vercel AI SDK's UI message stream); :func:`iter_sse` and :func:`aiter_sse` write them, coalescing over a flush
  interval; :func:`sse_response` is the Starlette/FastAPI response (the ``web`` extra:
  ``pip install 'starlette>=0.37'``).

A FastAPI endpoint::

    @app.post("/write")
    async def write() -> StreamingResponse:
        events = await client.chat.completions.create(model=..., messages=..., tools=..., stream=True)
        return sse_response(ToolCallPatches(OpenAIChatToolCalls).astream(events))
"""

from __future__ import annotations

from .._json_patch import JsonPatchOp, PatchStream, StrictOps, apply_patch, coalesce, pointer, snapshot_ops
from ._agui import AGUIWire, agui_events
from ._ai_sdk import UIMessageWire, ui_message_chunks
from ._events import PatchEvent, PatchEventKind
from ._sources import (
    ArgumentPatches,
    DocumentPatches,
    OutputPatches,
    PatchingParser,
    ToolCallPatches,
    atext_patches,
    text_patches,
)
from ._starlette import sse_response
from ._static import static_path
from ._wire import PatchWire, Wire, aiter_sse, iter_sse

__all__ = [
    "PatchStream",
    "StrictOps",
    "JsonPatchOp",
    "pointer",
    "snapshot_ops",
    "apply_patch",
    "coalesce",
    "PatchEvent",
    "PatchEventKind",
    "ArgumentPatches",
    "DocumentPatches",
    "OutputPatches",
    "PatchingParser",
    "ToolCallPatches",
    "text_patches",
    "atext_patches",
    "Wire",
    "PatchWire",
    "AGUIWire",
    "UIMessageWire",
    "agui_events",
    "ui_message_chunks",
    "iter_sse",
    "aiter_sse",
    "sse_response",
    "static_path",
]
