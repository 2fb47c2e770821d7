"""Where events come from: an iterable of events, or an SDK stream manager to enter and close."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

__all__ = ["aentered", "entered"]


def entered(events: Any) -> contextlib.AbstractContextManager[Iterable[Any]]:
    """A context giving the events to iterate: a stream manager (``client.messages.stream(...)`` and the like, a
    context manager that is not itself iterable) is entered and closed with the context; an iterable is used as is."""
    if not hasattr(events, "__iter__") and hasattr(events, "__enter__"):
        return events  # type: ignore[no-any-return]
    return contextlib.nullcontext(events)


@contextlib.asynccontextmanager
async def aentered(events: Any) -> AsyncIterator[AsyncIterable[Any]]:
    """:func:`entered` for async streams: an async stream manager is entered (``async with``) and closed with the
    context; an async iterable is used as is."""
    if not hasattr(events, "__aiter__") and hasattr(events, "__aenter__"):
        async with events as entered_events:
            yield entered_events
    else:
        yield events
