"""Model outputs as each model family writes them, built from the 845 real tool calls: the raw text an inference
server reads, and the events a correct reader gives for it (adjacent deltas merged)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

from streaming_json.model_output import (
    FORMATS,
    ArgumentsDelta,
    ContentDelta,
    ReasoningDelta,
    ToolCallEnd,
    ToolCallStart,
)

REAL_CALLS: list[tuple[str, str]] = [
    (record["name"], record["arguments"])
    for record in map(
        json.loads, (Path(__file__).parent / "data" / "llm_tool_calls.jsonl").read_text("utf-8").splitlines()
    )
]

FORMAT_NAMES = ["hermes", "llama3_json", "mistral", "mistral_v11", "granite", "deepseek_v3", "deepseek_v31", "kimi_k2"]
FORMAT_NAMES += ["ernie45", "longcat", "cohere_command"]
# The formats that write arguments as text, typed by the tools' schemas ("glm45" is glm47 read in GLM-4.5's spacing),
# and Harmony's messages.
TEXT_FORMAT_NAMES = [
    "qwen3_coder",
    "seed_oss",
    "glm47",
    "glm45",
    "minimax_m2",
    "deepseek_v32",
    "deepseek_v4",
    "deepseek_v41",
    "kimi_k3",
    "gemma4",
    "pythonic",
    "llama4_pythonic",
    "step3",
    "hy_v3",
    "hy_v4",
    "olmo3",
]
NEW_FORMAT_NAMES = [*TEXT_FORMAT_NAMES, "harmony"]
ALL_FORMAT_NAMES = FORMAT_NAMES + NEW_FORMAT_NAMES
# Prose may come after the calls where the format ends them (Llama 3 writes nothing after its calls).
PROSE_AFTER = {name: name != "llama3_json" for name in ALL_FORMAT_NAMES}
# And before them, where calls are marked (Llama 3's bare JSON and the pythonic list open the output).
PROSE_BEFORE = {name: name not in ("llama3_json", "pythonic") for name in ALL_FORMAT_NAMES}
# The reasoning block each family writes, where the format reads one by default.
THINK_MARKERS = {
    "qwen3_coder": ("<think>", "</think>"),
    "seed_oss": ("<seed:think>", "</seed:think>"),
    "glm47": ("<think>", "</think>"),
    "glm45": ("<think>", "</think>"),
    "minimax_m2": ("<think>", "</think>"),
    "deepseek_v4": ("<think>", "</think>"),
    "deepseek_v41": ("<think>", "</think>"),
    "kimi_k3": ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
    "gemma4": ("<|channel>thought\n", "<channel|>"),
    "step3": ("<think>", "</think>"),
    "hy_v3": ("<think>", "</think>"),
    "hy_v4": ("<think>", "</think>"),
    "olmo3": ("<think>", "</think>"),
}
# Other names of formats above: the same data (each is read by its format's tests).
ALIASES = {
    "mistral_v11": "mistral",
    "granite4": "hermes",
    "nemotron_v3": "qwen3_coder",
    "step3p5": "qwen3_coder",
    "cohere_command3": "cohere_command",
    "cohere_command4": "cohere_command",
}

# DSML's section markers and how its tags begin, per format (DeepSeek V3.2, V4, V4.1).
DSML_SECTIONS = {
    "deepseek_v32": ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>", "<｜DSML｜"),
    "deepseek_v4": ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>", "<｜DSML｜"),
    "deepseek_v41": ("<｜DSML｜ calls>", "</｜DSML｜ calls>", "<｜DSML｜ "),
}

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
    after (and a reasoning block first, if ``think``), and the events it must give (with ``call_id`` ids). The
    formats that write arguments as text give the JSON of the values (``json.dumps``' spacing), read with the
    schemas of ``tools_for(calls)``."""
    if format_name in NEW_FORMAT_NAMES:
        return _write_new_output(format_name, calls, before, after, think)
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
    elif format_name == "mistral_v11":  # (the same format, read in every spelling Mistral's models write, mixed)
        spellings = ["[TOOL_CALLS]{name}[ARGS]{arguments}", "[TOOL_CALLS]{name}{arguments}", "[TOOL_CALLS][{call}]"]
        body = "".join(
            spellings[index % 3].format(name=name, arguments=arguments, call=objects[index])
            for index, (name, arguments) in enumerate(calls)
        )
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
    elif format_name == "ernie45":  # prose inside <response>...</response>, markers that say nothing
        body = "".join(f"<tool_call>\n{call}\n</tool_call>" for call in objects)
        before = f"<response>{before}</response>" if before else ""
        after = f"<response>{after}</response>" if after else ""
    elif format_name == "longcat":
        body = "".join(f"<longcat_tool_call>{call}</longcat_tool_call>" for call in objects)
    elif format_name == "cohere_command":  # the answer after the calls inside <|START_TEXT|>...<|END_TEXT|>
        body = (
            "<|START_ACTION|>\n[\n    "
            + ",\n    ".join(
                f'{{"tool_call_id": "{index}", "tool_name": {json.dumps(name)}, "parameters": {arguments}}}'
                for index, (name, arguments) in enumerate(calls)
            )
            + "\n]\n<|END_ACTION|>"
        )
        after = f"<|START_TEXT|>{after}<|END_TEXT|>" if after else ""
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


# --- The formats that write arguments as text, and Harmony --------------------------------------------------------


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def tools_for(calls: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """OpenAI tool definitions for these calls, each parameter's schema inferred from the type of its value (a tool
    called twice gets the types of its first call's values)."""
    tools: dict[str, dict[str, Any]] = {}
    for name, arguments in calls:
        value = json.loads(arguments)
        properties = tools.setdefault(name, {})
        if isinstance(value, dict):
            for key, item in value.items():
                properties.setdefault(key, {"type": json_type(item)})
    return [
        {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}
        for name, properties in tools.items()
    ]


def typed_alike(calls: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The calls whose parameters have the types this tool's first call gave them: those that :func:`tools_for`'s
    schemas type as written (a later call of the tool with another type for a parameter is a wrong value for its
    schema, which ends the call with an error)."""
    seen: dict[str, dict[str, str]] = {}
    kept = []
    for name, arguments in calls:
        value = json.loads(arguments)
        types = {key: json_type(item) for key, item in value.items()} if isinstance(value, dict) else {}
        first = seen.setdefault(name, {})
        if all(first.setdefault(key, kind) == kind for key, kind in types.items()):
            kept.append((name, arguments))
    return kept


def format_markers(format_name: str) -> list[str]:
    """The markers a value's text cannot hold in this format (where a string is written raw)."""
    format = FORMATS[format_name]
    if format.literal is not None and format.literal.escapes:
        return []  # a Python string says anything, escaped
    found = [*format.section_end, format.call_begin, format.call_end]
    if format.parameters is not None:
        found += [format.parameters.begin, format.parameters.end]
    if format.literal is not None and not format.literal.escapes:
        found += list(format.literal.quotes)
    return [marker for marker in found if marker]


def writable(format_name: str, arguments: str) -> bool:
    """Whether these arguments can be written in this format: no string of them holds one of its markers (a raw
    value cannot say that the marker is text), keys are names where the format writes them bare, and arguments are an
    object."""
    value = json.loads(arguments)
    if not isinstance(value, dict):
        return False
    if format_name == "harmony":
        return True
    markers = format_markers(format_name)
    pythonic = _pythonic(format_name)

    def fits(item: Any, top: bool) -> bool:
        if isinstance(item, str):
            return not any(marker in item for marker in markers)
        if isinstance(item, dict):
            for key, inner in item.items():
                if (top or not pythonic) and not _bare_key(format_name, key, top):
                    return False
                if not fits(key, False) or not fits(inner, False):
                    return False
            return True
        if isinstance(item, list):
            return all(fits(inner, False) for inner in item)
        return True

    return fits(value, True)


def _pythonic(format_name: str) -> bool:
    return FORMATS[format_name].literal is FORMATS["pythonic"].literal


def _bare_key(format_name: str, key: str, top: bool) -> bool:
    if _pythonic(format_name):
        return key.isidentifier() and key not in ("True", "False", "None")
    if format_name == "gemma4":
        return bool(key) and key == key.strip() and not any(char in key for char in ':,{}[]<"')
    if format_name in DSML_SECTIONS:
        return '"' not in key
    if format_name == "kimi_k3":
        return '"' not in key and "<|" not in key
    if format_name in ("minimax_m2", "step3"):
        return bool(key) and key == key.strip() and not any(char in key for char in "\"'>")
    return bool(key) and key == key.strip() and ">" not in key and "<" not in key


def _trimmed(format_name: str, value: Any) -> Any:
    """A value as the format's rule reads it back: Seed-OSS writes string values inline, and its reader (Qwen3's)
    sheds one newline at each end of every value."""
    if format_name == "seed_oss" and isinstance(value, str):
        if value.startswith("\n"):
            value = value[1:]
        if value.endswith("\n"):
            value = value[:-1]
    return value


def _jinja_string(value: Any) -> str:
    """A value as Qwen3-Coder's template writes it: a string as itself, a mapping or list as JSON, anything else as
    Jinja's ``string`` filter does (Python's ``str``: ``True``, ``None``, ``3.5``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _gemma(value: Any) -> str:
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{_gemma(inner)}" for key, inner in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma(inner) for inner in value) + "]"
    return json.dumps(value)


def _harmony_text(before: str, think: str, calls: Sequence[tuple[str, str]], after: str) -> str:
    """gpt-oss's output after the prompt's ``<|start|>assistant``: the analysis message, a commentary preamble,
    the calls (the recipient after the channel, or before it), the final message."""
    messages = []
    if think:
        messages.append(f"<|channel|>analysis<|message|>{think}<|end|>")
    if before:
        messages.append(f"<|channel|>commentary<|message|>{before}<|end|>")
    for index, (name, arguments) in enumerate(calls):
        if index % 2:
            messages.append(f" to=functions.{name}<|channel|>commentary json<|message|>{arguments}<|call|>")
        else:
            messages.append(
                f"<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{arguments}<|call|>"
            )
    if after:
        messages.append(f"<|channel|>final<|message|>{after}<|return|>")
    return "<|start|>assistant".join(messages)


def _write_new_output(
    format_name: str, calls: Sequence[tuple[str, str]], before: str, after: str, think: str
) -> tuple[str, list[Any]]:
    expected: list[Any] = []
    if think:
        expected.append(ReasoningDelta(think))
    if before:
        expected.append(ContentDelta(before))
    for index, (name, arguments) in enumerate(calls):
        if format_name == "harmony":
            text_of_arguments, value = arguments, json.loads(arguments)
        else:
            value = {key: _trimmed(format_name, item) for key, item in json.loads(arguments).items()}
            text_of_arguments = json.dumps(value, ensure_ascii=False)
        expected += [
            ToolCallStart(index, call_id(index), name),
            ArgumentsDelta(index, text_of_arguments),
            ToolCallEnd(index, value, None),
        ]
    if after:
        expected.append(ContentDelta(after))
    if format_name == "harmony":
        return _harmony_text(before, think, calls, after), expected
    values = [(name, json.loads(arguments)) for name, arguments in calls]
    if format_name == "qwen3_coder":
        body = "".join(
            f"<tool_call>\n<function={name}>\n"
            + "".join(f"<parameter={key}>\n{_jinja_string(item)}\n</parameter>\n" for key, item in value.items())
            + "</function>\n</tool_call>"
            for name, value in values
        )
    elif format_name == "seed_oss":
        body = "".join(
            f"<seed:tool_call>\n<function={name}>\n"
            + "".join(f"<parameter={key}>{_jinja_string(item)}</parameter>\n" for key, item in value.items())
            + "</function>\n</seed:tool_call>"
            for name, value in values
        )
    elif format_name in ("glm47", "glm45"):
        gap = "\n" if format_name == "glm45" else ""
        body = "".join(
            f"<tool_call>{name}{gap}"
            + "".join(
                f"<arg_key>{key}</arg_key>{gap}<arg_value>{_json_unless_string(item)}</arg_value>{gap}"
                for key, item in value.items()
            )
            + "</tool_call>"
            for name, value in values
        )
    elif format_name == "minimax_m2":
        body = (
            "<minimax:tool_call>\n"
            + "".join(
                f'<invoke name="{name}">\n'
                + "".join(
                    f'<parameter name="{key}">{_json_unless_string(item)}</parameter>\n' for key, item in value.items()
                )
                + "</invoke>\n"
                for name, value in values
            )
            + "</minimax:tool_call>"
        )
    elif format_name in DSML_SECTIONS:
        begin, end, tag = DSML_SECTIONS[format_name]
        close = "</" + tag[1:]
        body = (
            f"{begin}\n"
            + "".join(
                f'{tag}invoke name="{name}">\n'
                + "".join(
                    f'{tag}parameter name="{key}" string="{"true" if isinstance(item, str) else "false"}">'
                    f"{_json_unless_string(item)}{close}parameter>\n"
                    for key, item in value.items()
                )
                + f"{close}invoke>\n"
                for name, value in values
            )
            + end
        )
    elif format_name == "kimi_k3":
        body = "<|open|>tools<|sep|>" + "".join(
            f'<|open|>call tool="{name}" index="{index + 1}"<|sep|>'
            + "".join(
                f'<|open|>argument key="{key}" type="{json_type(item)}"<|sep|>'
                f"{_json_unless_string(item)}<|close|>argument<|sep|>"
                for key, item in value.items()
            )
            + "<|close|>call<|sep|>"
            for index, (name, value) in enumerate(values)
        )
        body += "<|close|>tools<|sep|>"
        if before:  # the reply comes in the response channel, before the calls
            before = f"<|open|>response<|sep|>{before}<|close|>response<|sep|>"
    elif format_name == "gemma4":
        body = "".join(f"<|tool_call>call:{name}" + _gemma(value) + "<tool_call|>" for name, value in values)
    elif format_name == "step3":
        body = (
            "<｜tool_calls_begin｜>"
            + "".join(
                f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">'
                + "".join(
                    f'<steptml:parameter name="{key}">{_json_unless_string(item)}</steptml:parameter>'
                    for key, item in value.items()
                )
                + "</steptml:invoke><｜tool_call_end｜>"
                for name, value in values
            )
            + "<｜tool_calls_end｜>"
        )
    elif format_name in ("hy_v3", "hy_v4"):  # Hy3 ends the name with <tool_sep>, and writes a newline after each tag
        separator, gap = ("<tool_sep>", "\n") if format_name == "hy_v3" else ("", "")
        body = (
            f"<tool_calls>{gap}"
            + "".join(
                f"<tool_call>{name}{separator}{gap}"
                + "".join(
                    f"<arg_key>{key}</arg_key>{gap}<arg_value>{_json_unless_string(item)}</arg_value>{gap}"
                    for key, item in value.items()
                )
                + f"</tool_call>{gap}"
                for name, value in values
            )
            + "</tool_calls>"
        )
    elif format_name == "olmo3":  # a call a line; true, false and null as JSON writes them, or as Python does
        body = (
            "<function_calls>"
            + "\n".join(
                f"{name}("
                + ", ".join(f"{key}={_olmo(item, index)}" for index, (key, item) in enumerate(value.items()))
                + ")"
                for name, value in values
            )
            + "</function_calls>"
        )
    elif format_name in ("pythonic", "llama4_pythonic"):
        body = (
            "["
            + ", ".join(
                f"{name}(" + ", ".join(f"{key}={item!r}" for key, item in value.items()) + ")" for name, value in values
            )
            + "]"
        )
        if format_name == "llama4_pythonic":
            body = f"<|python_start|>{body}<|python_end|>"
    else:
        raise ValueError(format_name)
    text = before + body + after
    if think:
        begin, end = THINK_MARKERS[format_name]
        text = begin + think + end + text
    return text, expected


def _json_unless_string(value: Any) -> str:
    """As GLM's, MiniMax's and DeepSeek V3.2's templates write a value: a string as itself, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _olmo(value: Any, index: int) -> str:
    """A value as OLMo 3 writes it: a Python literal, where ``true``, ``false`` and ``null`` may be JSON's."""
    if (value is None or isinstance(value, bool)) and index % 2:
        return json.dumps(value)
    return repr(value)
