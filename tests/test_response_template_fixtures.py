"""The fixtures of transformers' response-parsing tests, as vLLM 0.33's sdist carries them
(``tests/parser/test_chat_parsing.py``; fetched at test time through the
index pip is configured with, nothing of theirs committed): their tests run on transformers' own reader (their
imports of ``vllm.parser.chat_parsing`` pointed at ``transformers.utils.chat_parsing``), and every call of
``parse_response`` they make with a template we compile is read again by ours, whole, at every piece size 1 to 31 and
in random splits: the same message. Each template of theirs we refuse is listed with the feature that stops it."""

from __future__ import annotations

import importlib.util
import random
import sys
import types
import unittest
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from streaming_json.model_output import ResponseParser, compile_response_template

from .servers.sdists import unpacked_sdist

chat_parsing = pytest.importorskip("transformers.utils.chat_parsing", reason="transformers is a test dependency")
response_parser = importlib.import_module("transformers.utils.chat_parsing.response_parser")
response_templates = importlib.import_module("transformers.utils.chat_parsing.response_templates")

# (The sdist's tests/parser/test_response_template.py imports vLLM's serving code, vllm.entrypoints: it runs with vLLM
# installed only, which this tier is not.)
FIXTURE_FILES = ("test_chat_parsing.py",)


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


def splits(text: str, seed: int) -> list[list[str]]:
    """The text whole, in pieces of every size from 1 to 31, and in three random splits."""
    found = [[text]] + [[text[at : at + size] for at in range(0, len(text), size)] for size in range(1, 32)]
    rng = random.Random(seed)
    for _ in range(3):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 12)))) if len(text) > 1 else []
        found.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])])
    return found


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_every_fixture_we_compile_reads_as_transformers_reads_it(backend: ModuleType, name: str) -> None:
    module = fixture_module(name)
    original = module.__dict__.get("parse_response", chat_parsing.parse_response)
    compared: list[Any] = []
    refused: dict[str, str] = {}
    mismatches: list[Any] = []

    def parse_response(text: Any, template: Any, *args: Any, **kwargs: Any) -> Any:
        expected = original(text, template, *args, **kwargs)  # raises where transformers raises
        prefix, tools = kwargs.get("prefix"), kwargs.get("tools")
        if not isinstance(text, str) or kwargs.get("tokenizer") is not None or args:
            return expected
        try:
            compiled = compile_response_template(template)
        except ValueError as error:
            refused[repr(sorted(template.get("fields", {})))[:60] + repr(template.get("start_anchor"))[:40]] = str(
                error
            )
            return expected
        for pieces in splits(text, len(compared)):
            parser = ResponseParser(compiled, prefix=prefix, tools=tools, parser_class=backend.StreamingJsonParser)
            for piece in pieces:
                parser.feed(piece)
            message = parser.finalize()[0]
            if message != expected:
                mismatches.append((text, len(pieces), message, expected))
                break
        compared.append(text)
        return expected

    module.parse_response = parse_response
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TestResult()
    suite.run(result)
    for name_, template in vars(module).items():  # the module's templates, whether or not a test parsed with them
        if isinstance(template, dict) and "fields" in template:
            try:
                compile_response_template(template)
            except ValueError as error:
                refused[name_] = str(error)
    print(f"\n{name}: {len(compared)} parses compared; refused:")
    for key, reason in sorted(refused.items()):
        print(f"  {key}: {reason}")
    assert not mismatches, mismatches[:3]
    assert compared, "no fixture compiled"
