"""The code examples of README.md and docs/, found and run as a reader would run them (tests/test_docs.py).

A page's blocks run in order, as one program: a ``python`` block in the namespace of the page's earlier ones, a
``console`` block as shell commands (``$ command``, then the output it must print). A ``text`` block right after the
comment ``<!-- output -->`` is what the python blocks before it printed, since the previous such block. A block
that is not meant to run follows the comment ``<!-- not run: why -->``; other shell languages (``sh``, ``bash``)
must be marked so or written as ``console`` blocks with their output.

The SDK examples create their clients as a user does (``anthropic.Anthropic()``, ``openai.OpenAI()``,
``genai.Client()``, ``cohere.ClientV2()``, ``boto3.client("bedrock-runtime")``); the examples run with the SDKs' base
URLs pointing at ``ReplayServer``, a real HTTP server on 127.0.0.1 that answers each request with server-sent events
in the API's documented shapes (built from tests/sdk_events.py and tests/provider_streams.py; AWS event-stream
messages for Bedrock): the SDKs' own clients, decoding and stream managers run as they do for a user, with no
network.

``python -m tests.docs_examples PAGE ...`` runs pages in a process of their own and prints the failures as JSON, so
that a test can run them on a backend other than the one its process imported.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from . import provider_streams
from . import sdk_events as sse
from .sse_replay import LocalServer, event_stream_message, sse_body

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

RUN_LANGUAGES = {"python", "console"}
# Imports that an example may need and a test environment may lack: the SDKs and frameworks have no wheels for PyPy
# 3.9, and the wheel's own check installs none of them.
OPTIONAL_MODULES = {
    "vllm",  # the servers' pages: `make test-servers` runs them, in the servers' environment
    "sglang",
    "pydantic",
    "openai",
    "anthropic",
    "jiter",
    "langchain_core",
    "langchain_openai",
    "pydantic_ai",
    "agents",
    "google",
    "google.genai",
    "cohere",
    "boto3",
    "httpx",
}
# Languages of code a reader would run: a block in one of them is run (above), or marked as not run.
SHELL_LANGUAGES = {"sh", "bash", "shell", "zsh", "pycon", "py", "python3"}
MARKER = re.compile(r"^<!--\s*(.*?)\s*-->$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")


def pages() -> list[Path]:
    """README.md and every page of the site."""
    return [ROOT / "README.md", *sorted(path for path in DOCS.rglob("*.md") if "_build" not in path.parts)]


def page_name(page: Path) -> str:
    """The page's path from the top of the repository (any other page: its path as given)."""
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page: its language, its code, the line its code starts on, and its marker (the
    text of an HTML comment on the line before the fence, or None)."""

    page: Path
    line: int
    language: str
    code: str
    marker: Optional[str]

    @property
    def where(self) -> str:
        return f"{page_name(self.page)}:{self.line}"

    @property
    def not_run_reason(self) -> Optional[str]:
        """Why the block does not run, where it is marked ``not run: why``."""
        if self.marker is not None and self.marker.startswith("not run"):
            return self.marker.partition(":")[2].strip()
        return None

    @property
    def is_output(self) -> bool:
        return self.marker == "output"


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of ``page``, MyST directives (```` ```{toctree} ````) left out."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        number += 1
        if opening is None:
            continue
        fence, language = opening.groups()
        start = number
        while number < len(lines) and not lines[number].strip().startswith(fence):
            number += 1
        code = "\n".join(lines[start:number]) + "\n"
        number += 1  # the closing fence
        if language.startswith("{"):
            continue
        previous = next((line.strip() for line in reversed(lines[: start - 1]) if line.strip()), "")
        marker = MARKER.match(previous)
        found.append(Block(page, start + 1, language, code, marker.group(1) if marker else None))
    return found


# --- Running a page -------------------------------------------------------------------------------------------------


class ExampleFailed(AssertionError):
    """An example that raised, or printed other than its page shows; ``where`` is its page and line."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where

    @property
    def missing_module(self) -> Optional[str]:
        """The optional package the example needs where that is why it failed (those before it ran)."""
        cause = self.__cause__
        if isinstance(cause, ModuleNotFoundError) and cause.name in OPTIONAL_MODULES:
            return cause.name
        return None


def run_page(page: Path) -> None:
    """Run the examples of ``page`` in order; raise ``ExampleFailed`` at the first that fails."""
    # A module of its own, in sys.modules while the page runs: classes defined in an example have a module that
    # pydantic and dataclasses can find, as in a reader's script.
    module = types.ModuleType("docs_example_" + re.sub(r"\W", "_", page_name(page)))
    sys.modules[module.__name__] = module
    printed = io.StringIO()
    try:
        for block in blocks(page):
            if block.not_run_reason is not None:
                continue
            if block.language == "python":
                _run_python(block, module, printed)
            elif block.language == "console":
                _run_console(block)
            elif block.is_output:
                _compare(block, printed.getvalue())
                printed = io.StringIO()
    finally:
        del sys.modules[module.__name__]


def _run_python(block: Block, module: types.ModuleType, printed: io.StringIO) -> None:
    # The code at its own line numbers, under the page's name: a traceback points into the Markdown.
    code = compile("\n" * (block.line - 1) + block.code, str(block.page), "exec")
    try:
        with contextlib.redirect_stdout(printed):
            exec(code, module.__dict__)
    except Exception as error:
        raise ExampleFailed(f"the example at {block.where} raised:\n{traceback.format_exc()}", block.where) from error


def _compare(block: Block, printed: str) -> None:
    if printed != block.code:
        diff = "".join(difflib.unified_diff(block.code.splitlines(True), printed.splitlines(True), "shown", "printed"))
        message = f"the examples before {block.where} printed other than the page shows:\n{diff}"
        raise ExampleFailed(message, block.where)


def _run_console(block: Block) -> None:
    """Each ``$ command`` of a console block, in bash in a scratch directory, against the output shown after it."""
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as scratch:
        for command, shown in _commands(block.code):
            result = subprocess.run(
                ["bash", "-c", command],
                cwd=scratch,
                env=environment,
                capture_output=True,
                text=True,
                timeout=60,
            )
            if result.returncode != 0 or result.stdout + result.stderr != shown:
                raise ExampleFailed(
                    f"`{command}` at {block.where} exited {result.returncode} and printed\n"
                    f"{result.stdout}{result.stderr}\nwhere the page shows\n{shown}",
                    block.where,
                )


def _commands(console: str) -> Iterator[tuple[str, str]]:
    command: Optional[str] = None
    shown: list[str] = []
    for line in console.splitlines(True):
        if line.startswith("$ "):
            if command is not None:
                yield command, "".join(shown)
            command, shown = line[2:].rstrip("\n"), []
        else:
            shown.append(line)
    if command is not None:
        yield command, "".join(shown)


# --- The SDKs' servers, replayed ------------------------------------------------------------------------------------

# What the replayed model answers: each tool's call, and the structured output, in the pieces a model streams.
TOOL_CALL_PIECES = {
    "write_file": ['{"path": "', "hello", '.py", "', 'content": "', "print('hello", "')\\n", '"}'],
    "get_weather": ['{"city": "', "Par", 'is", "unit', '": "celsius"}'],
}
STRUCTURED_OUTPUT_PIECES = [
    '{"name": "',
    "Ada Love",
    'lace", "born',
    '": 1815, "known',
    '_for": ["the first ',
    'program"]}',
]
# pydantic-ai's output tool gives the structured output as its arguments (for a union, the first member's tool).
TOOL_CALL_PIECES["final_result"] = TOOL_CALL_PIECES["final_result_Person"] = STRUCTURED_OUTPUT_PIECES


def _tool_names(request: dict[str, Any]) -> list[Any]:
    """The names of the tools a request offers, in each API's shape."""
    names = []
    for tool in request.get("tools", []) + request.get("toolConfig", {}).get("tools", []):
        names.append(tool.get("name") or tool.get("function", {}).get("name") or tool.get("toolSpec", {}).get("name"))
        names += [declaration.get("name") for declaration in tool.get("functionDeclarations", [])]
    return names


def _answer(path: str, request: dict[str, Any]) -> tuple[str, bytes]:
    """The content type and the event stream that answer ``request`` at ``path``: a call of the first tool it offers
    that has one, or else the structured output."""
    tool = next((name for name in _tool_names(request) if name in TOOL_CALL_PIECES), None)
    if path.endswith("/messages"):
        return "text/event-stream", _anthropic(tool)
    if path.endswith("/chat/completions"):
        return "text/event-stream", _openai_chat(tool)
    if path.endswith("/responses"):
        return "text/event-stream", _openai_responses(tool)
    if ":streamGenerateContent" in path:
        return "text/event-stream", _gemini(tool)
    if path.endswith("/v2/chat"):
        return "text/event-stream", _cohere(tool)
    if path.endswith("/converse-stream"):
        return "application/vnd.amazon.eventstream", _bedrock(tool)
    if path.endswith("/api/chat"):
        return "application/x-ndjson", _ollama(tool)
    raise LookupError(f"no replay for {path}")


def _anthropic(tool: Optional[str]) -> bytes:
    if tool is not None:
        start = sse.tool_use_start(0, "toolu_01", tool)
        deltas = [sse.json_delta(0, piece) for piece in TOOL_CALL_PIECES[tool]]
        end = sse.message_end("tool_use")
    else:
        start = sse.block_start(0, {"type": "text", "text": ""})
        deltas = [sse.anthropic_text_delta(0, piece) for piece in STRUCTURED_OUTPUT_PIECES]
        end = sse.message_end("end_turn")
    return sse_body([sse.message_start(), start, *deltas, sse.block_stop(0), *end], named=True)


def _ollama(tool: Optional[str]) -> bytes:
    """Ollama's ``/api/chat`` stream: some text, the call whole in one chunk, the ``done`` chunk; JSON lines."""
    chunks: list[dict[str, Any]] = [{"message": {"role": "assistant", "content": "Sure."}, "done": False}]
    if tool is not None:
        function = {"name": tool, "arguments": json.loads("".join(TOOL_CALL_PIECES[tool]))}
        chunks.append({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": function}]}})
    chunks.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    return "".join(json.dumps({"model": "qwen3", **chunk}) + "\n" for chunk in chunks).encode()


def _openai_chat(tool: Optional[str]) -> bytes:
    if tool is not None:
        first = sse.tool_delta(0, "", id="call_01", name=tool)
        deltas = [sse.tool_delta(0, piece) for piece in TOOL_CALL_PIECES[tool]]
        end = sse.finish_choice(0, "tool_calls")
    else:
        first = sse.content_delta("", role=True)
        deltas = [sse.content_delta(piece) for piece in STRUCTURED_OUTPUT_PIECES]
        end = sse.finish_choice(0, "stop")
    chunks = [sse.chat_chunk(choice) for choice in (first, *deltas, end)]
    return sse_body(chunks, done_marker=True)


def _openai_responses(tool: Optional[str]) -> bytes:
    if tool is not None:
        text = "".join(TOOL_CALL_PIECES[tool])
        item: dict[str, Any] = {"type": "function_call", "id": "fc_01", "call_id": "call_01", "name": tool}
        events = [
            sse.item_added(0, "fc_01", "call_01", tool),
            *(sse.arguments_delta(0, "fc_01", piece) for piece in TOOL_CALL_PIECES[tool]),
            sse.arguments_done(0, "fc_01", text),
            sse.item_done(0, "fc_01", "call_01", tool, text),
        ]
        output = [{**item, "arguments": text, "status": "completed"}]
    else:
        text = "".join(STRUCTURED_OUTPUT_PIECES)
        events = [
            sse.message_added(0),
            sse.part_added(0),
            *(sse.text_delta(0, piece) for piece in STRUCTURED_OUTPUT_PIECES),
            sse.text_done(0, text),
            sse.message_done(0, text),
        ]
        output = [sse.message_item(text)]
    stream = [
        sse.response_event("created", "in_progress"),
        *events,
        sse.response_event("completed", "completed", output),
    ]
    return sse_body(sse.numbered(stream), named=True)


def _gemini(tool: Optional[str]) -> bytes:
    """The Gemini API sends a call whole, in one part (``partial_args`` are Vertex AI's)."""
    if tool is not None:
        arguments = json.loads("".join(TOOL_CALL_PIECES[tool]))
        part = {"functionCall": {"id": "fc_01", "name": tool, "args": arguments}}
        chunks = [provider_streams.gemini_chunk(part), provider_streams.gemini_chunk(None, "STOP")]
    else:
        chunks = [provider_streams.gemini_chunk({"text": piece}) for piece in STRUCTURED_OUTPUT_PIECES]
        chunks.append(provider_streams.gemini_chunk(None, "STOP"))
    return sse_body(chunks)


def _cohere(tool: Optional[str]) -> bytes:
    if tool is not None:
        events = provider_streams.cohere_stream([(tool, "")], 0)
        tool_call = events[2]["delta"]["message"]["tool_calls"]
        tool_call["id"] = "call_01"
        deltas = [
            {
                "type": "tool-call-delta",
                "index": 0,
                "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
            }
            for piece in TOOL_CALL_PIECES[tool]
        ]
        events = [*events[:3], *deltas, *events[3:]]
    else:
        start = {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}}
        deltas = [
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": piece}}}}
            for piece in STRUCTURED_OUTPUT_PIECES
        ]
        events = [start, *deltas, {"type": "content-end", "index": 0}, provider_streams.cohere_end("COMPLETE")]
    return "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events).encode()


def _bedrock(tool: Optional[str]) -> bytes:
    events: list[tuple[str, Any]] = [("messageStart", {"role": "assistant"})]
    if tool is not None:
        start = {"start": {"toolUse": {"toolUseId": "tooluse_01", "name": tool}}, "contentBlockIndex": 0}
        events.append(("contentBlockStart", start))
        events += [
            ("contentBlockDelta", {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": 0})
            for piece in TOOL_CALL_PIECES[tool]
        ]
        stop = "tool_use"
    else:
        events += [
            ("contentBlockDelta", {"delta": {"text": piece}, "contentBlockIndex": 0})
            for piece in STRUCTURED_OUTPUT_PIECES
        ]
        stop = "end_turn"
    events += [("contentBlockStop", {"contentBlockIndex": 0}), ("messageStop", {"stopReason": stop})]
    return b"".join(event_stream_message(kind, payload) for kind, payload in events)


class ReplayServer(LocalServer):
    """A server on 127.0.0.1 that answers the SDKs' streaming requests with replayed events; ``environment`` points
    the SDKs' clients at it."""

    def __init__(self) -> None:
        self.requests: list[str] = []

        def answer(path: str, request: bytes) -> tuple[str, bytes]:
            answered = _answer(path, json.loads(request or b"{}"))
            self.requests.append(path)
            return answered

        super().__init__(answer)

    @property
    def environment(self) -> dict[str, str]:
        address = self.address
        return {
            "ANTHROPIC_BASE_URL": address,
            "ANTHROPIC_API_KEY": "replay",
            "OPENAI_BASE_URL": f"{address}/v1",
            "OPENAI_API_KEY": "replay",
            "GOOGLE_GEMINI_BASE_URL": address,
            "GOOGLE_API_KEY": "replay",
            "CO_API_URL": address,
            "CO_API_KEY": "replay",
            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": address,
            "AWS_ACCESS_KEY_ID": "replay",
            "AWS_SECRET_ACCESS_KEY": "replay",
            "AWS_DEFAULT_REGION": "us-east-1",
            "OLLAMA_HOST": address,
            "OPENAI_AGENTS_DISABLE_TRACING": "1",  # the agents SDK would send its traces to OpenAI
            "NO_PROXY": "127.0.0.1",
            "no_proxy": "127.0.0.1",
        }


# --- A process of its own ------------------------------------------------------------------------------------------


def main(arguments: list[str]) -> int:
    """Run the pages named in ``arguments``; print as JSON the backend, the failures (``{page: message}``) and the
    pages whose examples stopped at one that needs a package not installed (``{page: where}``)."""
    import streaming_json

    failures, stopped = {}, {}
    for name in arguments:
        try:
            run_page(ROOT / name)
        except ExampleFailed as failure:
            if failure.missing_module is None:
                failures[name] = str(failure)
            else:
                stopped[name] = f"{failure.where} needs {failure.missing_module}"
    print(json.dumps({"backend": streaming_json.BACKEND, "failures": failures, "stopped": stopped}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
