"""vLLM: a ``ToolParser`` for every format :class:`ModelOutputStream` reads, and a ``ReasoningParser`` for ``<think>``
blocks, registered with vLLM's managers when this module is imported.

Load them into a server with the plugin file this module names::

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -m streaming_json.model_output.vllm --plugin-path)" \\
        --tool-call-parser streaming_json_hermes

Each format of :data:`~streaming_json.model_output.FORMATS` is ``streaming_json_FORMAT`` (and its aliases), the
reasoning parser ``streaming_json_think`` (``--reasoning-parser-plugin`` takes the same file). The plugin file is not
this module: vLLM imports a plugin file as the module its file name says, and a file named ``vllm.py`` would take the
place of vLLM itself in ``sys.modules``.

How a parser meets vLLM's serving layer (0.33's ``vllm.parser.abstract_parser.DelegatingParser``):

- Streaming reads ``delta_text`` alone, never ``current_text``; token ids are not needed. The parser says
  ``engine_based_streaming``: the serving layer then hands it each delta without concatenating the text so far, and
  calls ``finish_streaming()`` at the end, where text held back in case it began a marker comes out.
- The state the serving layer reads back is kept: ``prev_tool_call_arr`` (each call's name and, once it ends, its
  arguments), ``streamed_args_for_tool`` (each call's argument text as streamed, set when it ends),
  ``current_tool_id``; ``get_remaining_unstreamed_args()`` is ``""``: every argument character is streamed as it is
  read, verbatim, so that the serving layer's end-of-stream patch, which compares a re-serialisation of the parsed
  arguments with what was streamed, has nothing to add.
- ``adjust_request`` sets ``skip_special_tokens=False`` where the format's markers are (or hold) special tokens of
  the tokenizer (otherwise the detokenizer would drop them before the parser sees them), and
  ``spaces_between_special_tokens=False`` (otherwise it would write a blank between two of them).
- ``get_structural_tag`` gives vLLM's serving layer the xgrammar structural tag built from the format's data
  (``_structural_tags``): with ``tool_choice="required"``, a named tool, or a strict tool (``--tool-strict-level``),
  the model writes its calls in its own format, constrained, and the parser reads them as any output
  (``structural_tag_model`` set makes vLLM's ``supports_required_and_named`` False: no JSON-schema fallback).
- The request's tools (or those the parser was made with) are what a call may use (a call to another ends with an
  error); their parameters' schemas type the values of the formats that write them as text (Qwen3-Coder, GLM, ...).

Imports are guarded: vLLM moved these classes three times (``vllm.tool_parsers`` and
``vllm.entrypoints.generate.base.protocol`` in 0.33, ``vllm.entrypoints.openai.engine.protocol`` in 0.20, and
``vllm.entrypoints.openai.tool_parsers`` / ``vllm.entrypoints.openai.protocol`` before); the tests run on 0.33.0.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional

from ._events import ModelOutputEvent
from ._formats import FORMATS, ToolCallFormat
from ._markers import Markers
from ._response_template import compile_response_template
from ._servers import PREFIX, format_markers, grouped, request_structural_tag, tool_definitions
from ._stream import ModelOutputStream
from ._structural_tags import has_structural_tag

__all__ = [
    "StreamingJsonToolParser",
    "StreamingJsonThinkReasoningParser",
    "StreamingJsonHfToolParser",
    "StreamingJsonHfReasoningParser",
    "HF_PARSER_NAME",
    "TOOL_PARSERS",
    "PARSER_NAMES",
    "THINK_PARSER_NAME",
    "REASONING_PARSERS",
    "REASONING_PARSER_NAMES",
    "PLUGIN_FILE",
    "register",
]


def _first(name: str, *modules: str) -> Any:
    """``name`` from the first of ``modules`` that has it: where this vLLM keeps it."""
    for module in modules:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise ImportError(
        f"vLLM's {name} is in none of {', '.join(modules)}: install vLLM (pip install vllm), a release these "
        "adapters know (0.33 is the one tested)"
    )


_PROTOCOL = (
    "vllm.entrypoints.generate.base.protocol",
    "vllm.entrypoints.openai.engine.protocol",
    "vllm.entrypoints.openai.protocol",
)
_TOOL_PARSERS = ("vllm.tool_parsers", "vllm.entrypoints.openai.tool_parsers")
ToolParser: Any = _first("ToolParser", *_TOOL_PARSERS)
ToolParserManager: Any = _first("ToolParserManager", *_TOOL_PARSERS)
ReasoningParser: Any = _first("ReasoningParser", "vllm.reasoning")
ReasoningParserManager: Any = _first("ReasoningParserManager", "vllm.reasoning")
DeltaMessage: Any = _first("DeltaMessage", *_PROTOCOL)
DeltaToolCall: Any = _first("DeltaToolCall", *_PROTOCOL)
DeltaFunctionCall: Any = _first("DeltaFunctionCall", *_PROTOCOL)
ExtractedToolCallInformation: Any = _first("ExtractedToolCallInformation", *_PROTOCOL)
ToolCall: Any = _first("ToolCall", *_PROTOCOL)
FunctionCall: Any = _first("FunctionCall", *_PROTOCOL)

THINK_PARSER_NAME = PREFIX + "think"
PLUGIN_FILE = Path(__file__).resolve().with_name("_vllm_plugin.py")
"""The file to pass to ``--tool-parser-plugin`` (and ``--reasoning-parser-plugin``)."""


def _new_call_id_maker() -> Callable[[int], str]:
    """vLLM's own call ids (``chatcmpl-tool-...``), from the field that makes them, wherever this vLLM keeps it."""
    field = getattr(ToolCall, "model_fields", {}).get("id")
    factory = getattr(field, "default_factory", None)
    if callable(factory):
        return lambda index: str(factory())
    from ._stream import _fresh_call_id

    return _fresh_call_id


_new_call_id = _new_call_id_maker()


def special_tokens(tokenizer: Any) -> Optional[set[str]]:
    """The tokenizer's special and added tokens, or None where it does not say."""
    found: set[str] = set()
    told = False
    for attribute in ("all_special_tokens", "additional_special_tokens"):
        tokens = getattr(tokenizer, attribute, None)
        if isinstance(tokens, (list, tuple)):
            told = True
            found.update(token for token in tokens if isinstance(token, str))
    added = getattr(tokenizer, "get_added_vocab", None)
    if callable(added):
        try:
            vocab = added()
        except Exception:  # a tokenizer that is not a Hugging Face one may not have it working
            vocab = None
        if isinstance(vocab, dict):
            told = True
            found.update(vocab)
    return found if told else None


class _Deltas:
    """Turns the events of one piece into one ``DeltaMessage`` (or None where the piece completed nothing): the
    content, and a ``DeltaToolCall`` per call in the piece, its id and name where it starts; and keeps the calls'
    state that the serving layer reads back."""

    __slots__ = ("parser",)

    def __init__(self, parser: StreamingJsonToolParser) -> None:
        self.parser = parser

    def message(self, events: list[ModelOutputEvent]) -> Any:
        if not events:
            return None
        if len(events) == 1:  # the usual piece: more of a call's arguments, or of the content
            (event,) = events
            if event.kind == "arguments":
                self.parser._texts[event.index].append(event.text)
                return DeltaMessage(
                    tool_calls=[DeltaToolCall(index=event.index, function=DeltaFunctionCall(arguments=event.text))]
                )
            if event.kind == "content":
                return DeltaMessage(content=event.text) if event.text else None
        piece = grouped(events)
        parser = self.parser
        calls = []
        for call in piece.calls:
            if call.name is None:
                calls.append(DeltaToolCall(index=call.index, function=DeltaFunctionCall(arguments=call.arguments)))
            else:
                parser._start(call.index, call.name)
                function = DeltaFunctionCall(name=call.name, arguments=call.arguments)
                calls.append(DeltaToolCall(index=call.index, id=call.id, type="function", function=function))
            parser._texts[call.index].append(call.arguments)
        for index, arguments, _ in piece.ends:
            parser._end(index, arguments)
        if not piece.content and not calls:
            return None
        return DeltaMessage(content=piece.content or None, tool_calls=calls)


class StreamingJsonToolParser(ToolParser):  # type: ignore[misc]  # vLLM's class: Any to the type checker
    """A vLLM ``ToolParser`` over :class:`ModelOutputStream`, one subclass per format (``format``); see the module
    documentation."""

    format: ClassVar[ToolCallFormat]
    engine_based_streaming = True
    structural_tag_model: ClassVar[Optional[str]] = None
    """``streaming_json_FORMAT`` where the format has a structural tag (vLLM asks ``get_structural_tag`` then)."""

    def __init__(self, tokenizer: Any, tools: Optional[list[Any]] = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        self._tools = tool_definitions(tools)
        self._stream: Optional[ModelOutputStream] = None
        self._deltas = _Deltas(self)
        self._given_text_so_far = False  # the caller passes previous_text (vLLM's contract before engine parsers)
        self._texts: list[list[str]] = []  # each call's argument text as streamed, until it ends

    def _begin_output(self, request: Any) -> ModelOutputStream:
        """A new output begins: a new stream, and the state read back from the parser starts over."""
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.streamed_args_for_tool: list[str] = []
        self._texts = []
        self.current_tool_id = -1
        self.current_tool_name_sent = False
        stream = self._stream = self._new_stream(request)
        return stream

    def _new_stream(self, request: Any = None) -> ModelOutputStream:
        tools = self._tools
        if tools is None and request is not None:
            tools = tool_definitions(getattr(request, "tools", None))
        return ModelOutputStream(self.format, tools=tools, new_call_id=_new_call_id)

    # --- What the serving layer reads back --------------------------------------------------------------------

    def _start(self, index: int, name: str) -> None:
        self.current_tool_id = index
        self.current_tool_name_sent = True
        self.prev_tool_call_arr.append({"name": name, "arguments": {}})
        self.streamed_args_for_tool.append("")
        self._texts.append([])

    def _end(self, index: int, arguments: dict[str, Any]) -> None:
        self.prev_tool_call_arr[index]["arguments"] = arguments
        self.streamed_args_for_tool[index] = "".join(self._texts[index])
        self._texts[index] = []

    def get_remaining_unstreamed_args(self) -> str:
        """Nothing: every argument character went out as it was read."""
        return ""

    # --- vLLM's interface ---------------------------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        """vLLM's adjustments (structured output for forced tool choices), and ``skip_special_tokens=False`` where
        the format's markers are special tokens: the detokenizer must not drop them before the parser reads them."""
        if request.tool_choice not in ("auto", "none", None):
            request = super().adjust_request(request)  # vLLM's adjustments are for forced tool choices only
        if request.tools and request.tool_choice != "none" and self._markers_are_special():
            request.skip_special_tokens = False
            if hasattr(request, "spaces_between_special_tokens"):
                # (else the detokenizer writes a blank between two special tokens: "<|open|> tools <|sep|>")
                request.spaces_between_special_tokens = False
        return request

    def get_structural_tag(self, request: Any, *, reasoning: bool = False, strict_level: Any = None) -> Any:
        """The xgrammar ``StructuralTag`` that makes the model write this request's calls in the format (vLLM's
        ``DelegatingParser`` asks it for required, named and strict tool choices), or None where no tag applies:
        vLLM's rules pick the tools and their strictness (``--tool-strict-level``, each tool's ``strict``;
        ``VLLM_ENFORCE_STRICT_TOOL_CALLING=0`` turns tags off), a strict tool's arguments follow its schema."""
        if not getattr(importlib.import_module("vllm.envs"), "VLLM_ENFORCE_STRICT_TOOL_CALLING", True):
            return None
        registry = importlib.import_module("vllm.tool_parsers.structural_tag_registry")
        if strict_level is None:
            strict_level = registry.ToolStrictLevel.AUTO
        tools = registry.get_structural_tag_tools(self.structural_tag_model, request.tools or [], request.tool_choice)
        tools = registry.resolve_tool_strictness(tools, request.tool_choice, strict_level)
        parallel = getattr(request, "parallel_tool_calls", None) is not False
        tag = request_structural_tag(self.format, tools, request.tool_choice, parallel=parallel, reasoning=reasoning)
        return None if tag is None else registry.StructuralTag.model_validate(tag)

    def _markers_are_special(self) -> bool:
        special = special_tokens(self.model_tokenizer)
        if special is None:
            return True  # the tokenizer does not say: keeping special tokens costs nothing, losing a marker a call
        markers = format_markers(self.format)
        # A marker is a special token, or holds one (Kimi K3's "<|open|>call" begins with the token "<|open|>").
        return any(marker in special for marker in markers) or any(
            token in marker for token in special if len(token) > 2 for marker in markers
        )

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """The calls of a whole output and its content, read as the streaming path reads them. Where a call is in
        error (its arguments malformed or cut off, no name, a tool not in the request's), the output is no call: it
        is returned whole, as written, as content; a stream cannot take back a call it has sent, a whole output can
        be given back as the model wrote it."""
        stream = self._new_stream(request)
        events = stream.feed(model_output) + stream.finish()
        content: list[str] = []
        calls: list[Any] = []
        names: dict[int, tuple[str, str]] = {}
        arguments: dict[int, list[str]] = {}
        for event in events:
            if event.kind == "content":
                content.append(event.text)
            elif event.kind == "start":
                names[event.index] = (event.id, event.name)
                arguments[event.index] = []
            elif event.kind == "arguments":
                arguments[event.index].append(event.text)
            elif event.kind == "end":
                if event.error is not None:
                    return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
                call_id, name = names[event.index]
                calls.append(
                    ToolCall(id=call_id, function=FunctionCall(name=name, arguments="".join(arguments[event.index])))
                )
        text = "".join(content)
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=text or None)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        """The ``DeltaMessage`` of one delta, or None where it completed nothing yet. Reads ``delta_text`` only
        (``previous_text`` only says whether a new output begins: a caller that passes the text so far passes it
        empty again for the next output)."""
        stream = self._stream
        if previous_text:
            self._given_text_so_far = True
        elif self._given_text_so_far:
            stream = None
        if stream is None:
            stream = self._begin_output(request)
        return self._deltas.message(stream.feed(delta_text))

    def finish_streaming(self) -> Any:
        """The end of the output: text held back in case it began a marker, a call left open."""
        stream = self._stream
        if stream is None:
            return None
        return self._deltas.message(stream.finish())


class StreamingJsonThinkReasoningParser(ReasoningParser):  # type: ignore[misc]
    """A vLLM ``ReasoningParser`` for a ``<think>`` block that opens the output (or that the prompt opened):
    its text is reasoning, what follows ``</think>`` is content, and an output that does not open with the block has
    none. Reads ``delta_text`` only."""

    engine_based_streaming = True
    begin: ClassVar[str] = "<think>"
    end: ClassVar[str] = "</think>"
    content_begins: ClassVar[tuple[str, ...]] = ()
    """Markers that open the content (a format's ``content_begin``): after the block's begin, the block is over."""

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._reader = _ThinkReader(self.begin, self.end)

    @property
    def reasoning_start_str(self) -> str:
        return self.begin

    @property
    def reasoning_end_str(self) -> str:
        return self.end

    def _token_id(self, marker: str) -> Optional[int]:
        try:
            found = self.vocab.get(marker)
        except Exception:  # a tokenizer without a vocabulary
            return None
        return found if isinstance(found, int) else None

    def _last_marker(self, input_ids: Sequence[int]) -> Optional[str]:
        """Which of the markers comes last in the ids (the block's begin: it is open), or None; a content opener
        after the begin counts as the end."""
        begin, end = self._token_id(self.begin), self._token_id(self.end)
        if begin is not None and end is not None and not self.content_begins:
            for token_id in reversed(input_ids):
                if token_id == begin:
                    return self.begin
                if token_id == end:
                    return self.end
            return None
        return self._last_marker_in(self.model_tokenizer.decode(list(input_ids)))

    def _last_marker_in(self, text: str) -> Optional[str]:
        """Which of the markers comes last in ``text``, as ``_last_marker`` says."""
        at_begin = text.rfind(self.begin)
        at_end = max(text.rfind(marker) for marker in (self.end, *self.content_begins))
        if at_begin < 0 and at_end < 0:
            return None
        return self.begin if at_begin > at_end else self.end

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        return self._last_marker(input_ids) == self.end

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        """Where the chat template opened the block, the output starts inside it."""
        if self._last_marker(prompt_token_ids) == self.begin:
            self._reader.open()

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._reader.ended

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        end = self._token_id(self.end)
        if end is not None and end in input_ids:
            return input_ids[input_ids.index(end) + 1 :]
        return input_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        begin, end = self._token_id(self.begin), self._token_id(self.end)
        count, inside = 0, self._reader.opened_by_prompt
        for token_id in token_ids:
            if token_id == begin:
                inside = True
            elif token_id == end:
                inside = False
            elif inside:
                count += 1
        return count

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[Optional[str], Optional[str]]:
        reader = _ThinkReader(self.begin, self.end)
        if self._reader.opened_by_prompt:
            reader.open(self._reader.opened_unless)
        reasoning, content = reader.read(model_output)
        more_reasoning, more_content = reader.finish()
        return (reasoning + more_reasoning) or None, (content + more_content) or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Any:
        reasoning, content = self._reader.read(delta_text)
        if not reasoning and not content:
            return None
        return DeltaMessage(reasoning=reasoning or None, content=content or None)

    def finish_streaming(self) -> Any:
        reasoning, content = self._reader.finish()
        if not reasoning and not content:
            return None
        return DeltaMessage(reasoning=reasoning or None, content=content or None)


class _ThinkReader:
    """The reasoning block at the start of an output, read in pieces: ``read(piece)`` gives (reasoning, content)."""

    __slots__ = (
        "begin",
        "end",
        "_begin",
        "_end",
        "_place",
        "_held",
        "_held_from_prompt",
        "opened_by_prompt",
        "opened_unless",
        "_unless",
    )

    def __init__(self, begin: str, end: str) -> None:
        self.begin, self.end = begin, end
        self._begin, self._end = Markers(begin), Markers(end)
        self._place = "start"  # before the first text; "inside" the block; "after" it (all content)
        self._held = ""
        self._held_from_prompt = 0  # how much of what is held is the prompt's (never given out)
        self.opened_by_prompt = False
        self.opened_unless: tuple[str, ...] = ()  # openers that, at the very start, keep the block shut (open())
        self._unless: tuple[str, ...] = ()  # the same, until the output's start has said

    @property
    def ended(self) -> bool:
        return self._place == "after"

    def open(self, unless: tuple[str, ...] = ()) -> None:
        """The output starts inside the block; with ``unless``, not where it starts with one of those markers."""
        if self._place == "start" and not self._held:
            self._place = "inside"
            self.opened_by_prompt = True
            self.opened_unless = self._unless = unless

    def continue_begin(self, begun: str) -> None:
        """The prompt ends with ``begun``, the beginning of the block's begin marker (``<|chan``): the output's first
        text says whether it completes it. The prompt's text is never given out, as reasoning or as content."""
        if self._place == "start" and not self._held:
            self._held, self._held_from_prompt = begun, len(begun)

    def read(self, piece: str) -> tuple[str, str]:
        if self._place == "after":
            return "", piece
        text = self._held + piece
        self._held = ""
        if self._unless:
            if any(len(text) < len(marker) and marker.startswith(text) for marker in self._unless):
                self._held = text  # the beginning of such a marker: what follows says
                return "", ""
            unless, self._unless = self._unless, ()
            if any(text.startswith(marker) for marker in unless):
                self._place = "after"  # another field's opener at the very start: the block never opened
                return "", text
        if self._place == "start":
            stripped = text.lstrip()
            if not stripped or (len(stripped) < len(self.begin) and self.begin.startswith(stripped)):
                self._held = text  # blanks, or the beginning of the begin marker: what follows says
                return "", ""
            from_prompt, self._held_from_prompt = self._held_from_prompt, 0
            if not stripped.startswith(self.begin):
                self._place = "after"  # the output does not open with the block: it has none
                return "", text[from_prompt:]
            self._place = "inside"
            text = stripped[len(self.begin) :]
        found, _ = self._end.find(text)
        if found >= 0:
            self._place = "after"
            return text[:found], text[found + len(self.end) :]
        held = self._end.held_from(text)
        self._held = text[held:]
        return text[:held], ""

    def finish(self) -> tuple[str, str]:
        held, self._held = self._held, ""
        if self._place == "inside":
            return held, ""
        self._place = "after"
        from_prompt, self._held_from_prompt = self._held_from_prompt, 0
        return "", held[from_prompt:]


class StreamingJsonHfToolParser(StreamingJsonToolParser):
    """``streaming_json_hf``: the served checkpoint's ``response_template`` (its tokenizer's, transformers'
    declarative output format), compiled into a :class:`ToolCallFormat` when vLLM makes the parser; where vLLM's
    ``hf`` parser sends each call whole when it closes, this one streams its arguments. A template the engine cannot
    stream raises ``ValueError`` naming the field and the feature."""

    def __init__(self, tokenizer: Any, tools: Optional[list[Any]] = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools, *args, **kwargs)
        self.format = ToolCallFormat.from_response_template(tokenizer, "hf")  # type: ignore[misc]  # this checkpoint's

    # tool_choice "none": the request reads no calls, so the output is content as written, a call's text too (as
    # vLLM's hf parser gives it, and vLLM's serving layer gives the text to a tool parser that is not engine-based);
    # vLLM's DelegatingParser would otherwise strip the calls it reads from every delta, and their text with them.

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        if getattr(request, "tool_choice", None) == "none":
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output or None)
        return super().extract_tool_calls(model_output, request)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        if getattr(request, "tool_choice", None) == "none":
            self._stream = None  # (nothing held: finish_streaming has nothing to add)
            return DeltaMessage(content=delta_text) if delta_text else None
        return super().extract_tool_calls_streaming(
            previous_text, current_text, delta_text, previous_token_ids, current_token_ids, delta_token_ids, request
        )


class StreamingJsonHfReasoningParser(StreamingJsonThinkReasoningParser):
    """``streaming_json_hf``: the reasoning block the served checkpoint's ``response_template`` names. A prompt is
    read as vLLM's ``hf`` parser reads it: the assistant's message it holds, after the template's last
    ``start_anchor``. Reasoning is over there where the message's last marker closes the block, or where the message
    holds text and no marker (the prompt began the answer), or where it is empty and the request turned thinking off
    (``chat_template_kwargs={"enable_thinking": False}``); a message that ends with the beginning of the block's
    begin marker (``<|chan``) leaves it to the output to complete it. A prompt without the anchor is read by its
    markers only."""

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        self._template = compile_response_template(tokenizer, "hf")
        format = self._format = ToolCallFormat.from_response_template(self._template)
        if format.reasoning is None:
            raise ValueError("the checkpoint's response_template has no reasoning field")
        self.begin, self.end = format.reasoning  # type: ignore[misc]  # this checkpoint's markers
        self.content_begins = format.content_begin  # type: ignore[misc]
        chat_template_kwargs = kwargs.get("chat_template_kwargs") or {}
        self._thinking_off = chat_template_kwargs.get("enable_thinking", True) is False
        super().__init__(tokenizer, *args, **kwargs)

    def _message_in(self, input_ids: Sequence[int]) -> Optional[str]:
        """The assistant's message the prompt holds (its text after the template's last ``start_anchor``), or None
        where it has no anchor."""
        text = self.model_tokenizer.decode(list(input_ids))
        if self._template.start_anchor.search(text) is None:
            return None
        return self._template.prompt_tail(text)

    def _begin_begun(self, message: str) -> str:
        """The message, blanks aside, where it is the beginning of the begin marker (``<|chan``), else ``""``."""
        stripped = message.lstrip()
        return stripped if stripped and len(stripped) < len(self.begin) and self.begin.startswith(stripped) else ""

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        message = self._message_in(input_ids)
        if message is None or self._template.reasoning_at_start:
            return super().is_reasoning_end(input_ids)
        marker = self._last_marker_in(message)
        if marker is not None:
            return marker == self.end
        if self._begin_begun(message):
            return False
        return bool(message.strip()) or self._thinking_off

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        """Where the prompt's message opened the block, the output starts inside it; where it began its begin
        marker, the output's first text says. A block that opens at the start of the text (ERNIE's
        ``(?:^|<think>\\s*)``): the output starts inside it unless the prompt's tail closed it, or, where the tail is
        empty, the output starts with another field's opener (transformers takes the longer match there)."""
        if self._template.reasoning_at_start:
            prompt = self.model_tokenizer.decode(list(prompt_token_ids))
            if self._template.reasoning_open(prompt):
                format = self._format
                openers = (*format.content_begin, format.call_begin, *format.section_begin)
                at_start = not self._template.prompt_tail(prompt)
                self._reader.open(unless=tuple(marker for marker in openers if marker) if at_start else ())
            return
        message = self._message_in(prompt_token_ids)
        if message is None:
            super().adjust_initial_state_from_prompt(prompt_token_ids)
        elif self._last_marker_in(message) == self.begin:
            self._reader.open()
        elif self._begin_begun(message):
            self._reader.continue_begin(self._begin_begun(message))


HF_PARSER_NAME = PREFIX + "hf"
"""The ``--tool-call-parser`` and ``--reasoning-parser`` name of the parsers that read the served checkpoint's
``response_template``."""


def _parser_class(format: ToolCallFormat) -> type[StreamingJsonToolParser]:
    title = "".join(part.capitalize() for part in format.name.split("_"))
    return type(
        f"StreamingJson{title}ToolParser",
        (StreamingJsonToolParser,),
        {
            "format": format,
            "structural_tag_model": PREFIX + format.name if has_structural_tag(format) else None,
            "__doc__": f"The {format.name!r} format's calls, read by ModelOutputStream.",
        },
    )


def _reasoning_parser_class(format: ToolCallFormat) -> type[StreamingJsonThinkReasoningParser]:
    assert format.reasoning is not None
    if format.reasoning == (StreamingJsonThinkReasoningParser.begin, StreamingJsonThinkReasoningParser.end):
        return StreamingJsonThinkReasoningParser
    title = "".join(part.capitalize() for part in format.name.split("_"))
    begin, end = format.reasoning
    return type(
        f"StreamingJson{title}ReasoningParser",
        (StreamingJsonThinkReasoningParser,),
        {"begin": begin, "end": end, "__doc__": f"The {format.name!r} format's reasoning block, {begin!r} to {end!r}."},
    )


REASONING_PARSERS: dict[str, type[StreamingJsonThinkReasoningParser]] = {}
"""vLLM's ``--reasoning-parser`` names of ours and their classes: ``streaming_json_think`` for ``<think>`` blocks, and
``streaming_json_FORMAT`` for a format whose reasoning block has markers of its own (Seed-OSS's ``<seed:think>``,
Gemma 4's thought channel)."""

REASONING_PARSER_NAMES: dict[str, str] = {}
"""The ``--reasoning-parser`` that reads a format's reasoning block, per format name of a format that writes one
(where the reasoning parser reads the block, the tool parser is given what follows it)."""

TOOL_PARSERS: dict[str, type[StreamingJsonToolParser]] = {}
"""A ``ToolParser`` class per format name of ``FORMATS`` (aliases share their format's class)."""

PARSER_NAMES: dict[str, str] = {}
"""vLLM's ``--tool-call-parser`` names of ours, and the format each reads."""


def register() -> None:
    """Make a parser for every format of ``FORMATS`` that has none yet, and register them all with vLLM's managers,
    with the reasoning parser. This module's import does it; call it again after adding a format to ``FORMATS``."""
    for format in dict.fromkeys(FORMATS.values()):
        parser_class = TOOL_PARSERS.get(format.name)
        if parser_class is None or parser_class.format is not format:
            parser_class = _parser_class(format)
        for name in (format.name, *format.aliases):
            TOOL_PARSERS[name] = parser_class
            PARSER_NAMES[PREFIX + name] = name
        if format.reasoning is not None:
            reasoning_class = _reasoning_parser_class(format)
            reasoning_name = THINK_PARSER_NAME
            if reasoning_class is not StreamingJsonThinkReasoningParser:
                reasoning_name = PREFIX + format.name
            REASONING_PARSERS[reasoning_name] = reasoning_class
            for name in (format.name, *format.aliases):
                REASONING_PARSER_NAMES[name] = reasoning_name
    REASONING_PARSERS.setdefault(THINK_PARSER_NAME, StreamingJsonThinkReasoningParser)
    for name, parser_class in TOOL_PARSERS.items():
        ToolParserManager.register_module(PREFIX + name, module=parser_class)
    for name, reasoning_class in REASONING_PARSERS.items():
        ReasoningParserManager.register_module(name, module=reasoning_class)
    ToolParserManager.register_module(HF_PARSER_NAME, module=StreamingJsonHfToolParser)
    ReasoningParserManager.register_module(HF_PARSER_NAME, module=StreamingJsonHfReasoningParser)


register()


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m streaming_json.model_output.vllm --plugin-path``: the plugin file, as the last line; with no
    option, the parsers' names too."""
    args = sys.argv[1:] if argv is None else argv
    if args and args != ["--plugin-path"]:
        print("usage: python -m streaming_json.model_output.vllm [--plugin-path]", file=sys.stderr)
        return 2
    if not args:
        print("tool parsers (--tool-call-parser):", ", ".join(sorted(PARSER_NAMES)))
        print("reasoning parsers (--reasoning-parser):", ", ".join(sorted(REASONING_PARSERS)))
        print("plugin file (--tool-parser-plugin, --reasoning-parser-plugin):")
    print(PLUGIN_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
