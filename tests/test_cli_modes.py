"""The command line's reading modes: ``--changes --done``, ``--documents``, ``--lines`` and ``--prose``, run as
``python -m streaming_json`` in a subprocess on each backend."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

TIMEOUT = 30


def run_cli(backend: ModuleType, *args: str, input: bytes) -> subprocess.CompletedProcess[bytes]:
    pure = "1" if backend.__name__.endswith("_pure") else "0"
    return subprocess.run(
        [sys.executable, "-m", "streaming_json", *args],
        input=input,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "STREAMING_JSON_PURE_PYTHON": pure},
    )


def test_changes_with_done_events(backend: ModuleType) -> None:
    result = run_cli(backend, "--changes", "--done", input=b'{"a": [1, "x"]} trailing')
    assert result.returncode == 0 and result.stderr == b""
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [record for record in records if record["kind"] == "done"] == [
        {"kind": "done", "path": ["a", 0], "value": 1},
        {"kind": "done", "path": ["a", 1], "value": "x"},
        {"kind": "done", "path": ["a"], "value": [1, "x"]},
        {"kind": "done", "path": [], "value": {"a": [1, "x"]}},
    ]
    assert [record["kind"] for record in records[:3]] == ["set", "set", "set"]


def test_documents(backend: ModuleType) -> None:
    result = run_cli(backend, "--documents", input=b'{"a":1}{"b":2} [3]\n"four" 5')
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode().splitlines() == ['{"a":1}', '{"b":2}', "[3]", '"four"', "5"]


def test_json_lines(backend: ModuleType) -> None:
    result = run_cli(backend, "--lines", input=b'{"a":1} ignored\n\n[1,\n"x"\n')
    assert result.returncode == 0
    assert result.stdout.decode().splitlines() == ['{"a":1}', '"x"']
    assert result.stderr.decode() == "streaming-json: 2 lines skipped: 2, 3\n"  # stdout stays one document a line


def test_prose(backend: ModuleType) -> None:
    text = b'Sure, [sic]. Here:\n```json\n{"a": "b ``` c"}\n```\nThen {"second": 2}.'
    snapshots = run_cli(backend, "--prose", input=text)
    assert snapshots.returncode == 0 and snapshots.stderr == b""
    assert snapshots.stdout.decode().splitlines()[-1] == '{"a":"b ``` c"}'
    documents = run_cli(backend, "--prose", "--documents", input=text)
    assert documents.stdout.decode().splitlines() == ['{"a":"b ``` c"}', '{"second":2}']


@pytest.mark.parametrize(
    "args", [["--done"], ["--lines", "--changes"], ["--demo", "--prose"], ["--documents", "--changes"]]
)
def test_options_that_do_not_go_together(backend: ModuleType, args: list[str]) -> None:
    result = run_cli(backend, *args, input=b"[]")
    assert result.returncode == 2 and b"usage:" in result.stderr


def test_model_output_prints_the_openai_deltas(backend: ModuleType) -> None:
    """A server's view: a model's raw output in, the Chat Completions deltas out, the arguments as written."""
    output = (
        "<think>The user wants the file.</think>Let me look."
        '<tool_call>\n{"name": "read", "arguments": {"path": "a.py", "limit": 1e3}}\n</tool_call>'
    )
    result = run_cli(backend, "--model-output", "hermes", "--reasoning", "<think>", "</think>", input=output.encode())
    assert result.returncode == 0 and result.stderr == b""
    deltas = [json.loads(line) for line in result.stdout.splitlines()]
    assert deltas[:2] == [{"reasoning_content": "The user wants the file."}, {"content": "Let me look."}]
    (start,) = deltas[2]["tool_calls"]
    assert start["id"].startswith("call_") and start["function"] == {"name": "read", "arguments": ""}
    arguments = "".join(delta["tool_calls"][0]["function"]["arguments"] for delta in deltas[3:])
    assert arguments == '{"path": "a.py", "limit": 1e3}'


def test_model_output_types_the_parameters_by_the_tools_schemas(backend: ModuleType, tmp_path: Path) -> None:
    """Qwen3-Coder writes values as text: ``--tools`` gives the schemas that type them."""
    output = (
        "<think>Weather.</think><tool_call>\n<function=get_weather>\n<parameter=zip>\n03106\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    properties = {"zip": {"type": "string"}, "days": {"type": "integer"}}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"properties": properties}}}]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    result = run_cli(
        backend, "--model-output", "qwen3_coder", "--tools", str(tmp_path / "tools.json"), input=output.encode()
    )
    assert result.returncode == 0 and result.stderr == b""
    deltas = [json.loads(line) for line in result.stdout.splitlines()]
    assert deltas[0] == {"reasoning_content": "Weather."}  # the format's own reasoning block
    arguments = "".join(delta["tool_calls"][0]["function"]["arguments"] for delta in deltas[2:])
    assert arguments == '{"zip": "03106", "days": 3}'
    result = run_cli(backend, "--tools", str(tmp_path / "tools.json"), input=b"")
    assert result.returncode == 2 and b"--tools goes with --model-output" in result.stderr


def test_model_output_refuses_the_json_options(backend: ModuleType) -> None:
    result = run_cli(backend, "--model-output", "hermes", "--lines", input=b"")
    assert result.returncode == 2 and b"--model-output takes no JSON reading options" in result.stderr
    result = run_cli(backend, "--model-output", "gpt-9", input=b"")
    assert result.returncode == 2 and b"invalid choice: 'gpt-9'" in result.stderr
