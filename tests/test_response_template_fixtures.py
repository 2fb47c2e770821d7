"""The fixtures of transformers' response-parsing tests, as vLLM 0.33's sdist carries them
(``tests/parser/test_chat_parsing.py``; fetched at test time through the
index pip is configured with, nothing of theirs committed): their tests run on transformers' own reader (their
imports of ``vllm.parser.chat_parsing`` pointed at ``transformers.utils.chat_parsing``), and every call of
``parse_response`` they make with a template we compile is read again by ours, whole, at every piece size 1 to 31 and
in random splits: the same message. Each template of theirs we refuse is listed with the feature that stops it
(``REFUSED``): a new refusal, or a template that now compiles, fails the test until the list says so."""

from __future__ import annotations

import importlib.util
import sys
import types
import unittest
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .servers.response_template_reads import Reads
from .servers.sdists import unpacked_sdist

chat_parsing = pytest.importorskip("transformers.utils.chat_parsing", reason="transformers is a test dependency")
response_parser = importlib.import_module("transformers.utils.chat_parsing.response_parser")
response_templates = importlib.import_module("transformers.utils.chat_parsing.response_templates")

# (The sdist's tests/parser/test_response_template.py imports vLLM's serving code, vllm.entrypoints: it runs in the
# servers tier, which has vLLM: tests/servers/test_vllm_response_template.py.)
FIXTURE_FILES = ("test_chat_parsing.py",)

# Each template we refuse, by its name in the module (or, for a template a test writes inline, the test's name), and
# the field and feature our refusal names. transformers raises on some of these templates itself (a malformed one
# that a test checks the refusal of): those the list leaves out, as transformers' parse never returns.
_NO_CALLS = "response_template has no tool-call field: there is nothing for the engine to stream"
REFUSED = {
    "test_chat_parsing.py": {
        "test_field_without_close_runs_to_end_of_stream": _NO_CALLS,
        "test_history_bleed_is_guarded_by_prefix_not_by_response_anchor": _NO_CALLS,
        "test_int_content_parser": "count: a structured field without 'repeats' (one value, not a list of calls)",
        "test_join_concatenates_repeated_matches": (
            "thinking: 'join' other than \"\" of text kept as written ('strip': false)"
        ),
        "test_kv_lines_parser": "metadata: a structured field without 'repeats' (one value, not a list of calls)",
        "test_literal_list_open_and_close": "x: a text field other than the content and the reasoning",
        "test_merge_duplicates_arguments_are_cast_element_wise": "tool_calls: xml-inline's ['merge_duplicates']",
        "test_mutable_defaults_do_not_leak_across_parsers": "ResponseTemplate has no response_template",
        "test_non_tool_call_regions_are_untouched": (
            "citation: a structured field without 'repeats' (one value, not a list of calls)"
        ),
        "test_transform_dotted_paths_with_transform_each": (
            "tool_calls: 'transform_each' with the transform {'type': 'function', 'function': "
            "{'name': '{fn.name}', 'arguments': '{fn.args}'}}"
        ),
    }
}


def fixture_module(name: str) -> ModuleType:
    """One of the sdist's test modules, its vLLM imports given transformers' modules."""
    shims = {
        "vllm.parser.chat_parsing": chat_parsing,
        "vllm.parser.chat_parsing.response_parser": response_parser,
        "vllm.parser.chat_parsing.response_templates": response_templates,
    }
    saved = {key: sys.modules.get(key) for key in ["vllm", "vllm.parser", *shims]}
    for key in ("vllm", "vllm.parser"):
        if key not in sys.modules:
            sys.modules[key] = types.ModuleType(key)
    sys.modules.update(shims)
    try:
        path = unpacked_sdist("vllm", "0.33.0") / "tests" / "parser" / name
        spec = importlib.util.spec_from_file_location(f"vllm_sdist_{Path(name).stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for key, value in saved.items():
            if value is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = value
    return module


def calling_test() -> str:
    """The name of the fixture's test running now (the innermost ``test_...`` frame)."""
    frame = sys._getframe(1)
    while frame is not None and not frame.f_code.co_name.startswith("test_"):
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_code.co_name if frame is not None else "?"


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_every_fixture_we_compile_reads_as_transformers_reads_it(backend: ModuleType, name: str) -> None:
    module = fixture_module(name)
    original = module.__dict__.get("parse_response", chat_parsing.parse_response)
    reads = Reads(backend.StreamingJsonParser)
    named = {id(value): key for key, value in vars(module).items() if isinstance(value, dict) and "fields" in value}

    def parse_response(text: Any, template: Any, *args: Any, **kwargs: Any) -> Any:
        expected = original(text, template, *args, **kwargs)  # raises where transformers raises
        if isinstance(text, str) and kwargs.get("tokenizer") is None and not args:
            name_ = named.get(id(template)) or calling_test()
            reads.check(template, text, expected, prefix=kwargs.get("prefix"), tools=kwargs.get("tools"), name=name_)
        return expected

    module.parse_response = parse_response
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TestResult()
    suite.run(result)
    for name_, template in vars(module).items():  # the module's templates, whether or not a test parsed with them
        if isinstance(template, dict) and "fields" in template:
            reads.refuses(template, name_)
    print(f"\n{name}: {len(reads.compared)} parses compared")
    assert not reads.mismatches, reads.mismatches[:3]
    assert reads.refused == REFUSED[name]
    assert reads.compared, "no fixture compiled"
