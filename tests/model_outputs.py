"""Model outputs as each model family writes them, built from the 845 real tool calls: the raw text an inference
server reads, and the events a correct reader gives for it (adjacent deltas merged)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

from streaming_json.model_output import ArgumentsDelta, ContentDelta, ReasoningDelta, ToolCallEnd, ToolCallStart

REAL_CALLS: list[tuple[str, str]] = [
    (record["name"], record["arguments"])
    for record in map(
        json.loads, (Path(__file__).parent / "data" / "llm_tool_calls.jsonl").read_text("utf-8").splitlines()
    )
]

FORMAT_NAMES = ["hermes", "llama3_json", "mistral", "mistral_v11", "granite", "deepseek_v3", "deepseek_v31", "kimi_k2"]
# Prose may come after the calls where the format ends them (Llama 3 writes nothing after its calls).
PROSE_AFTER = {name: name != "llama3_json" for name in FORMAT_NAMES}
# And before them, where calls are marked (Llama 3's bare JSON opens the output).
PROSE_BEFORE = {name: name != "llama3_json" for name in FORMAT_NAMES}

DS_CALLS, DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def call_id(index: int) -> str:
    return f"call_{index}"


def arguments_styles(arguments: str) -> list[str]:
    """The arguments as the model wrote them, and as other models would write the same value: compact, spaced,
    indented, escaped to ASCII."""
    value = json.loads(arguments)
    return [
        arguments,
        json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        json.dumps(value, ensure_ascii=False),
        json.dumps(value, indent=2, ensure_ascii=False),
        json.dumps(value),
    ]


def write_output(
    format_name: str, calls: Sequence[tuple[str, str]], before: str = "", after: str = "", think: str = ""
) -> tuple[str, list[Any]]:
    """The raw output of a model of that family making these calls (name, argument text) with prose before and
    after (and a reasoning block first, if ``think``), and the events it must give (with ``call_id`` ids)."""
    expected: list[Any] = []
    text = ""
    if think:
        text += f"<think>{think}</think>"
        expected.append(ReasoningDelta(think))
    if before:
        expected.append(ContentDelta(before))
    ids = []
    for index, (name, arguments) in enumerate(calls):
        own_id = f"functions.{name}:{index}" if format_name == "kimi_k2" else call_id(index)
        ids.append(own_id)
        expected += [
            ToolCallStart(index, own_id, name),
            ArgumentsDelta(index, arguments),
            ToolCallEnd(index, json.loads(arguments), None),
        ]
    if after:
        expected.append(ContentDelta(after))
    objects = [f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}' for name, arguments in calls]
    if format_name == "hermes":
        body = "".join(f"<tool_call>\n{call}\n</tool_call>" for call in objects)
    elif format_name == "llama3_json":
        body = "<|python_tag|>" + "; ".join(
            f'{{"name": {json.dumps(name)}, "parameters": {arguments}}}' for name, arguments in calls
        )
    elif format_name == "mistral":
        body = "[TOOL_CALLS] [" + ", ".join(objects) + "]"
    elif format_name == "mistral_v11":
        body = "".join(f"[TOOL_CALLS]{name}[ARGS]{arguments}" for name, arguments in calls)
    elif format_name == "granite":
        body = "<|tool_call|>[" + ", ".join(objects) + "]"
    elif format_name == "deepseek_v3":
        body = DS_CALLS + "".join(
            f"{DS_CALL}function{DS_SEP}{name}\n```json\n{arguments}\n```{DS_CALL_END}" for name, arguments in calls
        )
        body += DS_CALLS_END
    elif format_name == "deepseek_v31":
        body = DS_CALLS + "".join(f"{DS_CALL}{name}{DS_SEP}{arguments}{DS_CALL_END}" for name, arguments in calls)
        body += DS_CALLS_END
    elif format_name == "kimi_k2":
        body = "<|tool_calls_section_begin|>"
        for own_id, (_, arguments) in zip(ids, calls):
            body += f"<|tool_call_begin|>{own_id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>"
        body += "<|tool_calls_section_end|>"
    else:
        raise ValueError(format_name)
    return text + before + body + after, expected


def merged(events: Sequence[Any]) -> list[Any]:
    """The events with adjacent deltas of the same kind (and call) joined: what no cut of the text may change."""
    out: list[Any] = []
    for event in events:
        last = out[-1] if out else None
        if last is not None and type(last) is type(event):
            if type(event) in (ContentDelta, ReasoningDelta):
                out[-1] = type(event)(last.text + event.text)
                continue
            if type(event) is ArgumentsDelta and event.index == last.index:
                out[-1] = ArgumentsDelta(event.index, last.text + event.text)
                continue
        out.append(event)
    return out


def read_all(make_stream: Callable[[], Any], pieces: Sequence[Any]) -> list[Any]:
    stream = make_stream()
    events = [event for piece in pieces for event in stream.feed(piece)]
    return events + stream.finish()
