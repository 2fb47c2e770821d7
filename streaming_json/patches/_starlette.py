"""The op stream of a Starlette or FastAPI endpoint: a streaming response of server-sent events
(the ``web`` extra: ``pip install 'starlette>=0.37'``; Starlette is imported when a response is made)."""

from __future__ import annotations

from typing import Any, Optional

from ._wire import SSE_HEADERS, PatchWire, Wire, aiter_sse

__all__ = ["sse_response"]

_INSTALL_HINT = "sse_response needs Starlette (FastAPI's base): pip install 'starlette>=0.37' (the package's web extra)"


def sse_response(
    events: Any,
    *,
    wire: Optional[Wire] = None,
    flush_interval: float = 0.05,
    status_code: int = 200,
    headers: Optional[dict[str, str]] = None,
) -> Any:
    """A ``StreamingResponse`` of server-sent events for an op stream (``ToolCallPatches(...).astream(events)``, any
    iterable or async iterable of :class:`PatchEvent`): ``wire`` is the shape (``PatchWire()``, what ``patches.js``
    reads, by default; ``AGUIWire(...)``; ``UIMessageWire(...)``), and the events of each ``flush_interval`` (seconds;
    0 sends each at once) go merged. A sync source is read in a worker thread."""
    try:
        from starlette.responses import StreamingResponse
    except ImportError as error:  # pragma: no cover - the test extra has it
        raise ImportError(_INSTALL_HINT) from error
    wire = wire if wire is not None else PatchWire()
    body = aiter_sse(events, wire=wire, flush_interval=flush_interval)
    return StreamingResponse(
        body,
        status_code=status_code,
        media_type="text/event-stream",
        headers={**SSE_HEADERS, **wire.headers, **(headers or {})},
    )
