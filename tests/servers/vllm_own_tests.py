"""vLLM's own tool-parser tests, from its sdist, run twice on this machine: with vLLM's parsers, and with ours in their
place (``vllm_own_tests_plugin.py``), each run a pytest of its own in a child process; and what each test did in
each run.

The tests that do not pass with ours are listed here, each with why: they read a vLLM parser's private state or
mock its internals (``NOT_APPLICABLE``), they encode a choice of vLLM's that ours does not make (``VLLM_CHOICES``:
text dropped, which issue 20's bug table counts as a loss, or a reading that vLLM's own parsers disagree on), or they
need a change to ``ModelOutputStream`` (``STREAM_NEEDS``, issue 30's list). ``test_vllm_own_tests.py`` checks that
every other test vLLM's parsers pass passes with ours, and that each listed one still fails with ours (so that the
lists stay true).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from .sdists import unpacked_sdist

VLLM_VERSION = "0.33.0"
HERE = Path(__file__).resolve().parent

# Per format, vLLM's test files that read it (tests/tool_parsers/).
FILES = {
    "hermes": ["tests/tool_parsers/test_hermes_tool_parser.py"],
    "llama3_json": ["tests/tool_parsers/test_llama3_json_tool_parser.py"],
    "granite": ["tests/tool_parsers/test_granite_tool_parser.py"],
    "deepseek_v3": ["tests/tool_parsers/test_deepseekv3_tool_parser.py"],
    "deepseek_v31": ["tests/tool_parsers/test_deepseekv31_tool_parser.py"],
    "kimi_k2": ["tests/tool_parsers/test_kimi_k2_tool_parser.py"],
    "qwen3_coder": ["tests/tool_parsers/test_qwen3coder_tool_parser.py"],
    "glm47": ["tests/tool_parsers/test_glm47_moe_tool_parser.py", "tests/tool_parsers/test_glm4_moe_tool_parser.py"],
    "minimax_m2": ["tests/tool_parsers/test_minimax_m2_tool_parser.py"],
    "deepseek_v32": ["tests/tool_parsers/test_deepseekv32_tool_parser.py"],
    "gemma4": ["tests/tool_parsers/test_gemma4_tool_parser.py"],
    "pythonic": ["tests/tool_parsers/test_pythonic_tool_parser.py"],
    "llama4_pythonic": ["tests/tool_parsers/test_llama4_pythonic_tool_parser.py"],
}

# vLLM's engine tests that replay a format's token streams at chunk sizes 1, 2, 3, 5, 11, 23 and whole, through the
# parser class vLLM builds for it (tests/parser/engine/), each group a run of its own
# (their conftest is that folder's).
ENGINE_FILES = {
    "granite": ["tests/parser/engine/test_granite.py"],
    "qwen3_coder": ["tests/parser/engine/test_qwen3.py"],
    "seed_oss": ["tests/parser/engine/test_seed_oss.py"],
    "glm47": ["tests/parser/engine/test_glm47_moe.py"],
    "minimax_m2": ["tests/parser/engine/test_minimax_m2.py"],
    "deepseek_v32": ["tests/parser/engine/test_deepseek_v32.py"],
    "gemma4": ["tests/parser/engine/test_gemma4_streaming_reasoning.py"],
}
GROUPS = {"tests/tool_parsers": FILES, "tests/parser/engine": ENGINE_FILES}

_LLAMA = "tests/tool_parsers/test_llama3_json_tool_parser.py::"
_KIMI = "tests/tool_parsers/test_kimi_k2_tool_parser.py::"

NOT_APPLICABLE = {
    _LLAMA + "test_regex_timeout_handling": "patches the vLLM parser's private regex (tool_call_start_regex)",
    **{
        f"tests/parser/engine/test_granite.py::TestNonStreaming::{test}": (
            "calls parse(), the engine Parser's whole-output method, which a ToolParser does not have (vLLM's "
            "DelegatingParser gives it over ours: test_vllm_serving.py's non-streaming test)"
        )
        for test in (
            "test_plain_text",
            "test_single_tool_token_marker",
            "test_single_tool_string_marker",
            "test_parallel_calls_one_array",
            "test_surrounding_text_is_content",
            "test_arguments_before_name",
            "test_marker_without_array_is_not_a_tool_call",
        )
    },
}

VLLM_CHOICES = {
    "tests/tool_parsers/test_deepseekv31_tool_parser.py::test_extract_tool_calls_with_multiple_tools": (
        "asserts that the text after the tool section is dropped; ours gives it as content (issue 20 counts dropped "
        "content as a loss)"
    ),
    _KIMI + "TestStreamingEdgeCases::test_content_after_tool_section": (
        "asserts that the text after the tool section is dropped; ours gives it as content (a loss in issue 20's table)"
    ),
    _KIMI + "TestExtractToolCalls::test_invalid_json_still_extracted": (
        "vLLM's Kimi K2 parser returns a call whose arguments are malformed; its Hermes and Llama 3 parsers return "
        "none and the output as content (their tests of invalid JSON pass with ours): ours does the latter in every "
        "format"
    ),
    _LLAMA + "test_extract_tool_calls_missing_parameters_and_arguments_key": (
        'vLLM reads {"name": ...} without arguments as no call; ours as a call with {} (a tool without parameters)'
    ),
    _LLAMA + "test_extract_tool_calls_simple": (
        "vLLM's non-streaming path finds a call object after prose, its streaming path does not; ours reads both "
        "paths alike (calls open the output or follow <|python_tag|>)"
    ),
    _LLAMA + "test_extract_tool_calls_multiple_json_with_surrounding_text": (
        "vLLM's non-streaming path finds call objects after prose, its streaming path does not; ours reads both "
        "paths alike"
    ),
}

STREAM_NEEDS = {
    _KIMI + "TestExtractToolCalls::test_invalid_funcall_id_skipped": (
        "a call whose header is not functions.NAME:IDX must be no call (the stream reads invalid.0 as the name)"
    ),
    _KIMI + "TestStreamingEdgeCases::test_noise_between_markers_suppressed": (
        "text in the tool section that is no call leaves the section, so the section's end marker leaks into "
        "content (vLLM also drops the text: ours keeps it as content once the marker no longer leaks)"
    ),
}

LISTED = {**NOT_APPLICABLE, **VLLM_CHOICES, **STREAM_NEEDS}


def run(parsers: str, files: list[str], report: Path, folder: str = "tests/tool_parsers") -> dict[str, dict[str, Any]]:
    """Run vLLM's tests ``files`` (of ``folder``, whose conftest they use) with ``parsers`` (``"theirs"`` or
    ``"ours"``) in a child pytest; each test's outcome (``passed``, ``failed``, ``skipped``, ``xfailed``,
    ``xpassed``, ``error``) and whether it ran ours."""
    root = unpacked_sdist("vllm", VLLM_VERSION)
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "STREAMING_JSON_VLLM_PARSERS": parsers,
        "STREAMING_JSON_VLLM_REPORT": str(report),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "vllm_own_tests_plugin",
        "-p",
        "no:cacheprovider",
        "--confcutdir",
        folder,  # vLLM's root conftest loads its models' stack: its parsers' tests need none of it
        "-o",
        "asyncio_mode=auto",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        *files,
    ]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=1200)
    if not report.exists():
        raise RuntimeError(f"vLLM's tests did not run ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    outcomes: dict[str, dict[str, Any]] = json.loads(report.read_text("utf-8"))
    return outcomes


def counts(outcomes: dict[str, dict[str, Any]], files: list[str], ours_only: bool = False) -> Counter[str]:
    return Counter(
        entry["outcome"]
        for test, entry in outcomes.items()
        if test.split("::")[0] in files and (entry["ours"] or not ours_only)
    )


def table(theirs: dict[str, dict[str, Any]], ours: dict[str, dict[str, Any]]) -> str:
    """Per format: the tests vLLM's parser passes, and those ours passes of the ones that ran ours (markdown)."""
    rows = [
        "| format | vLLM's file | vLLM's parser | ours | ours fails: listed (not applicable, vLLM's choice, stream) |",
        "| --- | --- | --- | --- | --- |",
    ]
    groups = [(name, files) for group in GROUPS.values() for name, files in group.items()]
    for format_name, files in groups:
        mine = {test for test, entry in ours.items() if test.split("::")[0] in files and entry["ours"]}
        their_counts = Counter(theirs[test]["outcome"] for test in mine if test in theirs)
        our_counts = Counter(ours[test]["outcome"] for test in mine)
        failing = [test for test in mine if ours[test]["outcome"] in ("failed", "error")]
        kinds = [sum(test in listed for test in failing) for listed in (NOT_APPLICABLE, VLLM_CHOICES, STREAM_NEEDS)]

        def cell(counter: Counter[str], total: int = len(mine)) -> str:
            extra = ", ".join(f"{counter[k]} {k}" for k in ("xfailed", "xpassed", "skipped") if counter[k])
            return f"{counter['passed']} of {total}" + (f" ({extra})" if extra else "")

        rows.append(
            f"| {format_name} | {Path(files[0]).name} | {cell(their_counts)} | {cell(our_counts)} | "
            f"{len(failing)}: {kinds[0]}, {kinds[1]}, {kinds[2]} |"
        )
    return "\n".join(rows)
