"""Typed streaming: partial pydantic models of JSON that arrives in pieces, validated once as their parts complete.

::

    from streaming_json.pydantic import ModelStream

    stream = ModelStream(WriteFile)
    for piece in pieces:
        partial = stream.append(piece)  # None before the root starts, then a PartialWriteFile (fields None until read)
        if partial is not None:
            show(partial.path, partial.content)
    result = stream.finish()  # one strict validation of the complete text
    if result.error is None:
        write(result.value)  # a WriteFile
    else:
        answer(result.message)  # what was wrong, ending with the text received

``iter_models(pieces, Record, path=("results",))`` yields each element of an array as a validated ``Record`` as
soon as it completes. Needs pydantic >= 2.7 (the ``pydantic`` extra: ``pip install 'pydantic>=2.7'``).
"""

from __future__ import annotations

try:
    import pydantic
except ImportError as error:  # pragma: no cover - exercised in a subprocess
    raise ImportError(
        "streaming_json.pydantic needs pydantic >= 2.7 (the package's pydantic extra): pip install 'pydantic>=2.7'"
    ) from error

if tuple(int(part) for part in pydantic.VERSION.split(".")[:2]) < (2, 7):  # pragma: no cover
    raise ImportError(
        f"streaming_json.pydantic needs pydantic >= 2.7, not {pydantic.VERSION}: pip install 'pydantic>=2.7'"
    )

from ._items import aiter_models, iter_models
from ._policies import State, Stream, StreamPolicy, StreamState
from ._result import ModelResult
from ._stream import ModelStream
from ._twins import PartialDataclass, PartialRootTwin, PartialTwin, partial_twin

__all__ = [
    "ModelStream",
    "Stream",
    "StreamPolicy",
    "StreamState",
    "State",
    "ModelResult",
    "iter_models",
    "aiter_models",
    "partial_twin",
    "PartialTwin",
    "PartialRootTwin",
    "PartialDataclass",
]
