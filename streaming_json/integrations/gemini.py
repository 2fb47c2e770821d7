"""Google Gemini (``google-genai``): function calls and structured output from the ``GenerateContentResponse`` chunks
of ``client.models.generate_content_stream(...)`` (and ``client.aio``), or from the chunks' dicts as the REST API
streams them (``:streamGenerateContent?alt=sse``, camelCase) or as ``model_dump()`` gives them (snake_case).

A function call comes whole (``function_call.args``, in one part) or, with ``stream_function_call_arguments``
(Vertex AI), as ``partial_args``: fragments that each give a value at a JSON path (``json_path`` like ``$.a.b[0]``,
a ``string_value``, ``number_value``, ``bool_value`` or ``null_value``); a string's pieces come in fragments with
``will_continue``, and the call ends with a part whose ``will_continue`` is false or absent. The fragments are written
as the JSON text they make (``_paths.ArgumentsWriter``), which the call's argument stream reads as it reads any
arguments: live partial values, then one strict parse of the text.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ._fields import get_field, get_items, get_key
from ._paths import ArgumentsWriter, encode_string
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit, unique

__all__ = ["GeminiToolCalls", "GeminiStructuredOutput"]

# The finish reasons that end a candidate as the model meant it; every other one stopped it early.
_DONE = frozenset(("STOP", "FINISH_REASON_UNSPECIFIED"))
_LIMIT = "MAX_TOKENS"


def _get(obj: Any, name: str, camel: str) -> Any:
    """A field by its snake_case name (SDK objects, ``model_dump()``) or its camelCase one (the REST API's JSON)."""
    value = get_field(obj, camel)
    return get_field(obj, name) if value is None else value


def _finish_reason(candidate: Any) -> Optional[str]:
    """The candidate's finish reason as text (the SDK's ``FinishReason`` enum is a ``str``), or None."""
    reason = _get(candidate, "finish_reason", "finishReason")
    if reason is None:
        return None
    return str(getattr(reason, "value", reason))


def _stop_reason(reason: str) -> Optional[str]:
    """Why the calls or the output a finish reason ends are cut off; None where it ends them as the model meant."""
    if reason in _DONE:
        return None
    if reason == _LIMIT:
        return at_length_limit(f"finishReason {reason!r}")
    return f"the provider stopped the candidate (finishReason {reason!r})"


def _parts(candidate: Any) -> Any:
    return get_items(get_field(candidate, "content"), "parts")


class GeminiToolCalls(ToolCallAccumulator[Any]):
    """Function calls from Gemini ``GenerateContentResponse`` chunks (the SDK's objects, or dicts in either naming).

    A call is keyed by ``(candidate index, its number among the candidate's calls)``; ``id`` is the call's ``id``
    (Gemini 3 gives one; None where the model gave none). A whole call (``args``) starts and ends in its part. A
    streamed one (``partial_args``) is open until a part with ``will_continue`` false or absent, or the candidate's
    ``finish_reason``: ``STOP`` ends it, ``MAX_TOKENS`` (or any other early stop) marks it ``incomplete``. A later
    part with another name or another id is a new call; ``args`` in a streamed call's part are its whole arguments.
    ``thought`` parts and text are skipped.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writers: dict[Any, tuple[LiveToolCall, ArgumentsWriter]] = {}  # per candidate: its streamed call
        self._counts: dict[Any, int] = {}  # per candidate: how many calls it started
        self._last: Any = None  # (candidate index, call, writer) of the streamed call written last

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk; return the calls it changed."""
        # The fast path: one candidate, one part, one more piece of the string a streamed call left open. Any other
        # shape raises here or fails a check below: the general path. ``_last`` is the streamed call written last,
        # which the next fragment most likely continues (see OpenAIChatToolCalls.feed).
        try:
            index, call, writer = self._last
            if type(chunk) is dict:
                (candidate,) = chunk["candidates"]
                (part,) = candidate["content"]["parts"]
                function_call = part["functionCall"]
                (fragment,) = function_call["partialArgs"]
                piece = fragment["stringValue"]
                plain = (
                    fragment["jsonPath"] == writer.string_path
                    and fragment.get("willContinue")
                    and function_call.get("willContinue")
                    and "finishReason" not in candidate
                    and "name" not in function_call
                    and candidate.get("index", 0) == index
                )
            else:
                fields_of = self._fields_of
                (candidate,) = fields_of(chunk)["candidates"]
                candidate = fields_of(candidate)
                (part,) = fields_of(candidate["content"])["parts"]
                function_call = fields_of(fields_of(part)["function_call"])
                (fragment,) = function_call["partial_args"]
                fragment = fields_of(fragment)
                piece = fragment["string_value"]
                plain = (
                    fragment["json_path"] == writer.string_path
                    and fragment["will_continue"]
                    and function_call["will_continue"]
                    and candidate["finish_reason"] is None
                    and function_call["name"] is None
                    and (candidate["index"] or 0) == index
                )
        except (AttributeError, LookupError, TypeError, ValueError):
            return self._feed(chunk)
        if plain and type(piece) is str and not call.done:
            if not piece:
                return []
            # The piece escaped as between a string's quotes (``_paths.escaped``, inline: a call a piece costs a frame)
            call.arguments = call._append_piece(encode_string(piece)[1:-1])
            return [call]
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> list[LiveToolCall]:
        """The general path: any shape of chunk."""
        changed: list[LiveToolCall] = []
        for candidate in get_items(chunk, "candidates"):
            index = get_key(candidate, "index", 0)
            for part in _parts(candidate):
                function_call = _get(part, "function_call", "functionCall")
                if function_call is not None and not get_field(part, "thought"):
                    changed.extend(self._read_call(index, function_call))
            reason = _finish_reason(candidate)
            if reason is not None:
                changed.extend(self._end_candidate(index, reason))
        return unique(changed)

    def _read_call(self, index: Any, function_call: Any) -> list[LiveToolCall]:
        name = get_field(function_call, "name")
        name = name if isinstance(name, str) and name else None
        call_id = get_field(function_call, "id")
        call_id = call_id if isinstance(call_id, str) and call_id else None
        arguments = get_field(function_call, "args")
        fragments = get_items(function_call, "partial_args") or get_items(function_call, "partialArgs")
        going_on = bool(_get(function_call, "will_continue", "willContinue"))
        changed: list[LiveToolCall] = []
        streamed = self._writers.get(index)
        if streamed is not None:
            call = streamed[0]
            if (name is not None and call.name is not None and name != call.name) or (
                call_id is not None and call.id is not None and call_id != call.id
            ):
                changed.extend(self._end_streamed(index, None))  # a new call: its end marker was lost
                streamed = None
        if streamed is None:
            if not (going_on or fragments or name is not None or arguments is not None):
                return changed  # an end marker with no call open
            changed.extend(self._start((index, self._next_number(index)), call_id, name))
            call = changed[-1]
            writer = ArgumentsWriter()
            if going_on or fragments:
                self._writers[index] = (call, writer)
            else:  # a whole call: its arguments, and its end
                call._replace(writer.whole(arguments if isinstance(arguments, dict) else {}))
                return changed + self._finish_open([call.key])
        else:
            call, writer = streamed
            if (call_id is not None and call.id is None) or (name is not None and call.name is None):
                call.id = call.id or call_id
                self._named(call, name)
                changed.append(call)
        if isinstance(arguments, dict):
            call._replace(writer.whole(arguments))
            changed.append(call)
        self._last = (index, call, writer)
        for fragment in fragments:
            if self._write(call, writer, fragment):
                changed.append(call)
        if not going_on:
            changed.extend(self._end_streamed(index, None))
        return changed

    def _write(self, call: LiveToolCall, writer: ArgumentsWriter, fragment: Any) -> bool:
        """Write one fragment into the call's text; return whether the text changed."""
        path = _get(fragment, "json_path", "jsonPath")
        value = _get(fragment, "string_value", "stringValue")
        is_string = isinstance(value, str)
        if not is_string:
            value, found = None, False
            for name, camel in (("number_value", "numberValue"), ("bool_value", "boolValue")):
                held = _get(fragment, name, camel)
                if held is not None and (type(held) is bool) == (name == "bool_value"):
                    value, found = held, True
                    break
            if not found and _get(fragment, "null_value", "nullValue") is None:
                return False  # no value: nothing to write
        if not call.text:
            call._append("{")
        piece = writer.write(path, value, is_string, bool(_get(fragment, "will_continue", "willContinue")))
        if piece is None:
            call._replace(writer.dump(call.text))
            return True
        return call._append(piece)

    def _end_streamed(self, index: Any, reason: Optional[str]) -> list[LiveToolCall]:
        """End the candidate's streamed call: its text closed and read strictly, or cut off (``reason``)."""
        streamed = self._writers.pop(index, None)
        if streamed is None:
            return []
        call, writer = streamed
        if call.done:
            return []
        if reason is not None:
            self._open.pop(call.key, None)
            call._cut(reason)
        elif writer.error is not None:
            self._open.pop(call.key, None)
            call._fail("malformed", writer.error)
        else:
            if call.text:
                call._append(writer.close())
            self._finish_open([call.key])
        return [call]

    def _end_candidate(self, index: Any, reason: str) -> list[LiveToolCall]:
        why = _stop_reason(reason)
        changed = self._end_streamed(index, why)
        keys = [key for key in self._open if key[0] == index]
        return changed + (self._finish_open(keys) if why is None else self._cut_open(keys, why))

    def _next_number(self, index: Any) -> int:
        number = self._counts.get(index, 0)
        self._counts[index] = number + 1
        return number

    def finish(self) -> list[LiveToolCall]:
        """End the calls still open: the stream ended before the candidate's ``finish_reason``, so each is
        ``incomplete``; return them."""
        self._writers.clear()
        return super().finish()


class GeminiStructuredOutput(StructuredOutput):
    """Structured output from Gemini ``GenerateContentResponse`` chunks: the text of one candidate's parts
    (``thought`` parts skipped), under ``response_mime_type="application/json"`` and a ``response_schema`` (or
    ``response_json_schema``).

    ``feed(chunk)`` returns the value so far (``MISSING`` until it starts). The candidate's ``finish_reason`` ends the
    output with one strict parse (``result``, ``error``, ``problem``; ``MAX_TOKENS``: an output that does not parse
    is ``incomplete``). ``model=`` gives typed values, as for the other APIs.
    """

    def __init__(
        self,
        model: Any = None,
        *,
        candidate: int = 0,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        super().__init__(model, parser_class=parser_class, stable=stable, coerce=coerce)
        self.candidate = candidate
        """The index of the candidate read (with ``candidate_count > 1``)."""

    def feed(self, chunk: Any) -> Any:
        """Read one chunk; return the value so far."""
        try:  # the fast path: one candidate, one text part, no finish reason
            if type(chunk) is dict:
                (candidate,) = chunk["candidates"]
                (part,) = candidate["content"]["parts"]
                text = part["text"]
                plain = not part.get("thought") and "finishReason" not in candidate
                index = candidate.get("index", 0)
            else:
                fields_of = self._fields_of
                (candidate,) = fields_of(chunk)["candidates"]
                candidate = fields_of(candidate)
                (part,) = fields_of(candidate["content"])["parts"]
                part = fields_of(part)
                text = part["text"]
                plain = not part["thought"] and candidate["finish_reason"] is None
                index = candidate["index"] or 0
        except (AttributeError, LookupError, TypeError, ValueError):
            return self._feed(chunk)
        if plain and type(text) is str and index == self.candidate:
            return self._append(text)
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> Any:
        for candidate in get_items(chunk, "candidates"):
            if get_key(candidate, "index", 0) != self.candidate:
                continue
            for part in _parts(candidate):
                text = get_field(part, "text")
                if isinstance(text, str) and not get_field(part, "thought"):
                    self._append(text)
            reason = _finish_reason(candidate)
            if reason is not None:
                why = _stop_reason(reason)
                if why is None:
                    self.finish()
                else:
                    self._stopped_early(why)
        return self.value
