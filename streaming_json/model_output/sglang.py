"""SGLang: a ``BaseFormatDetector`` for every format :class:`ModelOutputStream` reads, added to SGLang's
``FunctionCallParser.ToolCallParserEnum`` as ``streaming_json_FORMAT`` by :func:`register`.

SGLang has no plugin flag: register the detectors in the process that serves, before the server starts::

    from streaming_json.model_output.sglang import register
    register()
    # then launch as `python -m sglang.launch_server ... --tool-call-parser streaming_json_hermes` would, e.g.
    # sglang.srt.entrypoints.http_server.launch_server(server_args) from the same process

How a detector meets SGLang's serving layer (0.5.23's ``serving_chat``):

- ``parse_streaming_increment(new_text, tools)`` reads the new text alone, once; ``finish(tools)`` (the stream's end,
  ``parse_stream_end``) gives the text held back in case it began a marker, and ends a call left open.
- A call's first item carries its name, the next ones its argument text verbatim (``ToolCallItem.parameters``);
  ``tool_index`` is the call's index in the output, as SGLang's streaming detectors number them.
- The state SGLang's end-of-stream check reads (``prev_tool_call_arr``, ``streamed_args_for_tool``) holds each call's
  argument text as streamed, so that the check, which compares it with what was streamed, sends nothing more.
- The request's tools are what a call may use (a call to another ends with an error), their parameters' schemas
  the types of the values the text formats write as text; ``detect_and_parse`` reads a whole output as the stream
  does.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from ._formats import FORMATS, ToolCallFormat
from ._servers import PREFIX, format_markers, grouped, request_structural_tag, tool_definitions, tool_names
from ._stream import ModelOutputStream
from ._structural_tags import has_structural_tag, legacy_structure

try:
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector
    from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError(
        f"streaming_json.model_output.sglang needs SGLang ({error}): pip install sglang (0.5.23 is the one tested)"
    ) from error

__all__ = ["StreamingJsonDetector", "DETECTORS", "register", "register_response_template", "HF_DETECTOR_NAME"]


class StreamingJsonDetector(BaseFormatDetector):  # type: ignore[misc]  # SGLang's class: Any to the type checker
    """An SGLang detector over :class:`ModelOutputStream`, one subclass per format (``format``); see the module
    documentation."""

    format: ClassVar[ToolCallFormat]

    def __init__(self) -> None:
        super().__init__()
        markers = format_markers(self.format)
        self.bot_token = markers[0] if markers else ""
        self.eot_token = self.format.call_end or (self.format.section_end[0] if self.format.section_end else "")
        self._stream: Optional[ModelOutputStream] = None
        self._texts: list[list[str]] = []  # each call's argument text as streamed, until it ends

    def _new_stream(self, tools: Any) -> ModelOutputStream:
        return ModelOutputStream(self.format, tools=tool_definitions(tools))

    def has_tool_call(self, text: str) -> bool:
        if any(marker in text for marker in format_markers(self.format)):
            return True
        return self.format.bare_json_start and text.lstrip().startswith("{")

    def detect_and_parse(self, text: str, tools: Any) -> Any:
        """A whole output's calls and its content. Where a call is in error, the output is returned whole as normal
        text, with no call: a whole output can be given back as the model wrote it."""
        stream = self._new_stream(tools)
        piece = grouped(stream.feed(text) + stream.finish())
        if any(error is not None for _, _, error in piece.ends):
            return StreamingParseResult(normal_text=text, calls=[])
        indices = {name: number for number, name in enumerate(tool_names(tools) or [])}
        calls: dict[int, list[Any]] = {}
        for call in piece.calls:
            if call.name is not None:
                calls[call.index] = [call.name, call.arguments]
            else:
                calls[call.index][1] += call.arguments
        items = [
            ToolCallItem(tool_index=indices.get(name, -1), name=name, parameters=arguments)
            for name, arguments in calls.values()
        ]
        return StreamingParseResult(normal_text=piece.content, calls=items)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> Any:
        stream = self._stream
        if stream is None:
            stream = self._stream = self._new_stream(tools)
        events = stream.feed(new_text)
        if len(events) == 1:  # the usual piece: more of a call's arguments, or of the content
            (event,) = events
            if event.kind == "arguments":
                self._texts[event.index].append(event.text)
                return StreamingParseResult(calls=[ToolCallItem(tool_index=event.index, parameters=event.text)])
            if event.kind == "content":
                return StreamingParseResult(normal_text=event.text)
        return self._result(events)

    def finish(self, tools: Any) -> Any:
        stream = self._stream
        if stream is None:
            return StreamingParseResult()
        return self._result(stream.finish())

    def _result(self, events: list[Any]) -> Any:
        piece = grouped(events)
        items = []
        for call in piece.calls:
            if call.name is not None:
                self.current_tool_id = call.index
                self.current_tool_name_sent = True
                self.prev_tool_call_arr.append({"name": call.name, "arguments": ""})
                self.streamed_args_for_tool.append("")
                self._texts.append([])
            self._texts[call.index].append(call.arguments)
            items.append(ToolCallItem(tool_index=call.index, name=call.name, parameters=call.arguments))
        for index, _, _ in piece.ends:
            # The argument text as streamed, in both: SGLang's end-of-stream check has nothing to add.
            arguments = "".join(self._texts[index])
            self._texts[index] = []
            self.prev_tool_call_arr[index]["arguments"] = arguments
            self.streamed_args_for_tool[index] = arguments
        return StreamingParseResult(normal_text=piece.content, calls=items)

    def supports_structural_tag(self) -> bool:
        """Whether the format has a structural tag (every built-in one has): SGLang then constrains required, named
        and strict tool choices with it and reads the output with this detector."""
        return has_structural_tag(self.format)

    def get_structural_tag(
        self,
        tools: Any = None,
        tool_choice: Any = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
    ) -> Any:
        """The xgrammar ``StructuralTag`` built from the format's data for these tools and ``tool_choice``
        (``FunctionCallParser.get_structure_constraint`` asks it): the calls in the format's own markers, a strict
        tool's arguments following its schema, the reasoning block first where ``thinking_mode``."""
        tag = request_structural_tag(
            self.format, tools, tool_choice, parallel=parallel_tool_calls, reasoning=thinking_mode
        )
        if tag is None:
            return None
        from xgrammar import StructuralTag  # SGLang's own dependency, which constrains generation

        return StructuralTag.model_validate(tag)

    def structure_info(self) -> Any:
        """SGLang's older structural tag (a begin and end around each call's JSON arguments, and a trigger), for the
        formats whose arguments are JSON between two markers; ``get_structural_tag`` serves every format."""
        try:
            legacy_structure(self.format, "f")
        except ValueError as error:
            raise NotImplementedError(str(error)) from None
        return lambda name: StructureInfo(*legacy_structure(self.format, name))


def _detector_class(format: ToolCallFormat) -> type[StreamingJsonDetector]:
    title = "".join(part.capitalize() for part in format.name.split("_"))
    return type(
        f"StreamingJson{title}Detector",
        (StreamingJsonDetector,),
        {"format": format, "__doc__": f"The {format.name!r} format's calls, read by ModelOutputStream."},
    )


DETECTORS: dict[str, type[StreamingJsonDetector]] = {}
"""SGLang's ``--tool-call-parser`` names of ours (``streaming_json_FORMAT``), and their detector classes."""


def register() -> dict[str, type[StreamingJsonDetector]]:
    """Add a detector for every format of ``FORMATS`` to SGLang's ``FunctionCallParser.ToolCallParserEnum``; the
    names added, and their classes."""
    made: dict[ToolCallFormat, type[StreamingJsonDetector]] = {}
    for name, format in FORMATS.items():
        detector = DETECTORS.get(PREFIX + name)
        if detector is None or detector.format is not format:
            detector = made.get(format) or _detector_class(format)
        made[format] = detector
        DETECTORS[PREFIX + name] = detector
    FunctionCallParser.ToolCallParserEnum.update(DETECTORS)
    return dict(DETECTORS)


HF_DETECTOR_NAME = PREFIX + "hf"
"""The ``--tool-call-parser`` name :func:`register_response_template` gives a checkpoint's template."""


def register_response_template(source: Any, name: str = HF_DETECTOR_NAME) -> type[StreamingJsonDetector]:
    """Add a detector for the served checkpoint's ``response_template`` (transformers' declarative output format) to
    SGLang's ``FunctionCallParser.ToolCallParserEnum`` as ``name``: ``source`` is the checkpoint's tokenizer (its
    ``response_template``), its ``tokenizer_config.json`` path or folder, or the template. SGLang makes its detectors
    without the tokenizer, so the template is read here, once, in the process that serves. A template the engine
    cannot stream raises ``ValueError`` naming the field and the feature."""
    detector = _detector_class(ToolCallFormat.from_response_template(source, "hf"))
    FunctionCallParser.ToolCallParserEnum[name] = detector
    return detector
