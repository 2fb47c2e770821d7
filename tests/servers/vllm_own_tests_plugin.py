"""A pytest plugin for a run of vLLM's own tests from its sdist (``tests/servers/vllm_own_tests.py`` starts it):
the tokenizers their fixtures would load from a model hub replaced by one made here, and, with
``STREAMING_JSON_VLLM_PARSERS=ours``, our parsers in place of vLLM's for every format both read.

In place means where the tests find a parser: ``ToolParserManager``'s registry under vLLM's name for the format (the
shared cases look it up by name) and the class in vLLM's module (the per-format tests import it), both set before any
test module is imported. Nothing of the tests is changed. Each test's outcome is written to the JSON file
``STREAMING_JSON_VLLM_REPORT`` names, with whether it ran one of our parsers (a test of another parser that shares a
file with ours, vLLM's Granite 4 in the Hermes file, runs vLLM's in both runs, and is not counted as ours).

This file imports nothing of ``tests`` (vLLM's package of that name is the one on ``sys.path`` in that run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent

# vLLM's name of a format, where its class lives, and our format that stands in for it.
VLLM_PARSERS = {
    "hermes": ("vllm.tool_parsers.hermes_tool_parser", "Hermes2ProToolParser", "hermes"),
    "llama3_json": ("vllm.tool_parsers.llama_tool_parser", "Llama3JsonToolParser", "llama3_json"),
    "granite": ("vllm.tool_parsers.granite_engine_tool_parser", "GraniteEngineToolParser", "granite"),
    "deepseek_v3": ("vllm.tool_parsers.deepseekv3_tool_parser", "DeepSeekV3ToolParser", "deepseek_v3"),
    "deepseek_v31": ("vllm.tool_parsers.deepseekv31_tool_parser", "DeepSeekV31ToolParser", "deepseek_v31"),
    "kimi_k2": ("vllm.tool_parsers.kimi_k2_tool_parser", "KimiK2ToolParser", "kimi_k2"),
    "qwen3_coder": ("vllm.tool_parsers.qwen3_engine_tool_parser", "Qwen3EngineToolParser", "qwen3_coder"),
    "qwen3_xml": ("vllm.tool_parsers.qwen3_engine_tool_parser", "Qwen3EngineToolParser", "qwen3_coder"),
    "seed_oss": ("vllm.tool_parsers.seed_oss_engine_tool_parser", "SeedOssEngineToolParser", "seed_oss"),
    "glm45": ("vllm.tool_parsers.glm47_moe_tool_parser", "Glm47MoeModelToolParser", "glm47"),
    "glm47": ("vllm.tool_parsers.glm47_moe_tool_parser", "Glm47MoeModelToolParser", "glm47"),
    "minimax_m2": ("vllm.tool_parsers.minimax_m2_tool_parser", "MinimaxM2ToolParser", "minimax_m2"),
    "deepseek_v32": ("vllm.tool_parsers.deepseekv32_engine_tool_parser", "DeepSeekV32EngineToolParser", "deepseek_v32"),
    "gemma4": ("vllm.tool_parsers.gemma4_engine_tool_parser", "Gemma4EngineToolParser", "gemma4"),
    "openai": ("vllm.tool_parsers.gptoss_tool_parser", "GptOssToolParser", "harmony"),
    "pythonic": ("vllm.tool_parsers.pythonic_tool_parser", "PythonicToolParser", "pythonic"),
    "llama4_pythonic": ("vllm.tool_parsers.llama4_pythonic_tool_parser", "Llama4PythonicToolParser", "llama4_pythonic"),
    # The families vLLM 0.33 added parsers for.
    "step3": ("vllm.tool_parsers.step3_tool_parser", "Step3ToolParser", "step3"),
    "step3p5": ("vllm.tool_parsers.step3p5_tool_parser", "Step3p5ToolParser", "qwen3_coder"),
    "hy_v3": ("vllm.tool_parsers.hy_v3_tool_parser", "HYV3ToolParser", "hy_v3"),
    "ernie45": ("vllm.tool_parsers.ernie45_tool_parser", "Ernie45ToolParser", "ernie45"),
    "granite4": ("vllm.tool_parsers.granite4_tool_parser", "Granite4ToolParser", "hermes"),
    "longcat": ("vllm.tool_parsers.longcat_tool_parser", "LongcatFlashToolParser", "longcat"),
    "olmo3": ("vllm.tool_parsers.olmo3_tool_parser", "Olmo3PythonicToolParser", "olmo3"),
    # The newest flagship families.
    "deepseek_v4": ("vllm.tool_parsers.deepseekv4_engine_tool_parser", "DeepSeekV4EngineToolParser", "deepseek_v4"),
    "deepseek_v41": (
        "vllm.tool_parsers.deepseekv41_engine_tool_parser",
        "DeepSeekV41EngineToolParser",
        "deepseek_v41",
    ),
    "minimax_m3": ("vllm.tool_parsers.minimax_m3_tool_parser", "MinimaxM3ToolParser", "minimax_m3"),
    "kimi_k3": ("vllm.tool_parsers.kimi_k3_tool_parser", "KimiK3ToolParser", "kimi_k3"),
}

# Where vLLM's engine keeps a parser for a format too (its tests of tests/parser/engine/ build it there): the engine's
# Parser classes of the format (in its module and in registered_adapters, which the replay harness's trace builder
# imports them from), in whose place goes the Parser vLLM's serving layer composes over ours
# (ParserManager.get_parser: a DelegatingParser over our ToolParser and the reasoning parser of ours that reads the
# format's reasoning block); and the tool adapters over them that some of those tests build, in whose place goes our
# ToolParser.
VLLM_ENGINE_PARSERS = {
    "granite": [("vllm.parser.granite", "GraniteParser"), ("vllm.parser.engine.registered_adapters", "GraniteParser")],
    "qwen3_coder": [("vllm.parser.qwen3", "Qwen3Parser"), ("vllm.parser.engine.registered_adapters", "Qwen3Parser")],
    "seed_oss": [
        ("vllm.parser.seed_oss", "SeedOssParser"),
        ("vllm.parser.engine.registered_adapters", "SeedOssParser"),
    ],
    "glm47": [
        ("vllm.parser.glm47_moe", "Glm47MoeParser"),
        ("vllm.parser.engine.registered_adapters", "Glm47MoeParser"),
    ],
    "minimax_m2": [
        ("vllm.parser.minimax_m2", "MinimaxM2Parser"),
        ("vllm.parser.engine.registered_adapters", "MinimaxM2Parser"),
    ],
    "deepseek_v32": [
        ("vllm.parser.deepseek_v32", "DeepSeekV32Parser"),
        ("vllm.parser.engine.registered_adapters", "DeepSeekV32Parser"),
    ],
    "gemma4": [("vllm.parser.gemma4", "Gemma4Parser"), ("vllm.parser.engine.registered_adapters", "Gemma4Parser")],
    "deepseek_v4": [
        ("vllm.parser.deepseek_v4", "DeepSeekV4Parser"),
        ("vllm.parser.engine.registered_adapters", "DeepSeekV4Parser"),
    ],
    "deepseek_v41": [
        ("vllm.parser.deepseek_v41", "DeepSeekV41Parser"),
        ("vllm.parser.engine.registered_adapters", "DeepSeekV41Parser"),
    ],
    "minimax_m3": [
        ("vllm.parser.minimax_m3", "MinimaxM3Parser"),
        ("vllm.parser.engine.registered_adapters", "MinimaxM3Parser"),
    ],
}
VLLM_TOOL_ADAPTERS = {
    "qwen3_coder": [("vllm.parser.engine.registered_adapters", "Qwen3ParserToolAdapter")],
    "seed_oss": [("vllm.parser.engine.registered_adapters", "SeedOssParserToolAdapter")],
    "deepseek_v4": [("vllm.parser.engine.registered_adapters", "DeepSeekV4ParserToolAdapter")],
    "deepseek_v41": [("vllm.parser.engine.registered_adapters", "DeepSeekV41ParserToolAdapter")],
    "minimax_m3": [("vllm.parser.engine.registered_adapters", "MinimaxM3ParserToolAdapter")],
}

_ran_ours = False
_reads: Any = None  # the outputs vLLM's hf parser read in the test running, read again by ours
_outcomes: dict[str, dict[str, Any]] = {}


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"streaming_json_servers_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _texts(root: Path) -> list[str]:
    """What the tokenizer learns its words from: the sources of the tests that read model outputs."""
    folders = [root / "tests" / "tool_parsers", root / "tests" / "parser"]
    return [path.read_text("utf-8", "replace") for folder in folders for path in sorted(folder.rglob("*.py"))]


def _install_tokenizer(root: Path) -> None:
    import transformers
    import vllm.tokenizers

    tokenizer = _load("local_tokenizer").make_tokenizer(_texts(root))

    def from_pretrained(*args: Any, **kwargs: Any) -> Any:
        return tokenizer

    def get_tokenizer(*args: Any, **kwargs: Any) -> Any:
        return tokenizer

    transformers.AutoTokenizer.from_pretrained = from_pretrained  # type: ignore[method-assign,assignment]
    vllm.tokenizers.get_tokenizer = get_tokenizer  # type: ignore[assignment]


def _install_ours() -> None:
    from importlib import import_module

    from vllm.tool_parsers import ToolParserManager

    from streaming_json.model_output import vllm as ours

    # vLLM's registered_adapters module makes its adapters over the engine's classes when it is imported: it is
    # imported before any of them is replaced (else it would make them over ours)
    for places in (*VLLM_ENGINE_PARSERS.values(), *VLLM_TOOL_ADAPTERS.values()):
        for module_name, _ in places:
            import_module(module_name)
    wrapped: dict[str, Any] = {}
    for name, (module_name, class_name, format_name) in VLLM_PARSERS.items():
        parser_class = wrapped.get(format_name)
        if parser_class is None:
            parser_class = wrapped[format_name] = _counted(ours.TOOL_PARSERS[format_name])
            for adapter_module, adapter_class in VLLM_TOOL_ADAPTERS.get(format_name, ()):
                setattr(import_module(adapter_module), adapter_class, parser_class)
            if format_name in VLLM_ENGINE_PARSERS:
                composed = _composed(ours, format_name)
                for engine_module, engine_class in VLLM_ENGINE_PARSERS[format_name]:
                    setattr(import_module(engine_module), engine_class, composed)
        setattr(import_module(module_name), class_name, parser_class)
        ToolParserManager.tool_parsers[name] = parser_class
        ToolParserManager.lazy_parsers.pop(name, None)


def _composed(ours: Any, format_name: str) -> Any:
    """The Parser vLLM's serving layer makes for ``vllm serve --enable-auto-tool-choice --tool-call-parser
    streaming_json_FORMAT`` (with ``--reasoning-parser`` ours for the format's reasoning block, where it has one),
    made as the engine's Parser is: ``(tokenizer, tools=None, **kwargs)``."""
    from vllm.parser.parser_manager import ParserManager

    parser_class = ParserManager.get_parser(
        tool_parser_name=ours.PREFIX + format_name,
        reasoning_parser_name=ours.REASONING_PARSER_NAMES.get(format_name),
        enable_auto_tools=True,
    )
    assert parser_class is not None

    parsers = {
        "reasoning_parser_cls": parser_class.reasoning_parser_cls,
        "tool_parser_cls": parser_class.tool_parser_cls,
    }

    def init(self: Any, tokenizer: Any, tools: Any = None, *args: Any, **kwargs: Any) -> None:
        global _ran_ours
        _ran_ours = True
        for name, value in parsers.items():  # (a test that makes vLLM's adapters over the class sets them)
            setattr(type(self), name, value)
        parser_class.__init__(self, tokenizer, tools, *args, **kwargs)

    def parse(self: Any, model_output: str, request: Any, enable_auto_tools: bool = True, **kwargs: Any) -> Any:
        """As the serving layer calls it under ``--enable-auto-tool-choice`` (the engine's parse reads tools always)."""
        return parser_class.parse(self, model_output, request, enable_auto_tools, **kwargs)

    title = "".join(part.capitalize() for part in format_name.split("_"))
    return type(f"StreamingJson{title}Parser", (parser_class,), {"__init__": init, "parse": parse})


def _install_ours_hf() -> None:
    """Ours in place of vLLM's ``hf`` parsers (its ``response_template`` parsers, which
    tests/parser/test_response_template.py tests): ``streaming_json_hf`` under the name ``hf`` in both registries
    and in vLLM's module, whose function that turns them into its one template Parser finds none (so
    ``ParserManager`` composes ours as it composes any other pair, a DelegatingParser, as ``vllm serve
    --tool-call-parser streaming_json_hf`` does); and, in place of that Parser (``ResponseTemplateParser(tokenizer,
    tools, *, response_template=None, enable_auto_tools=None, **kwargs)``), the Parser vLLM composes over ours."""
    import vllm.parser.response_template as module
    from vllm.parser.parser_manager import ParserManager
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    from streaming_json.model_output import compile_response_template
    from streaming_json.model_output import vllm as ours

    tool_parser = _counted(ours.StreamingJsonHfToolParser)
    reasoning_parser = _counted(ours.StreamingJsonHfReasoningParser)
    ToolParserManager.tool_parsers["hf"] = tool_parser
    ToolParserManager.lazy_parsers.pop("hf", None)
    ReasoningParserManager.reasoning_parsers["hf"] = reasoning_parser
    ReasoningParserManager.lazy_parsers.pop("hf", None)
    module.ResponseTemplateToolParser = tool_parser
    module.ResponseTemplateReasoningParser = reasoning_parser
    module.response_template_parser_cls = lambda parser_class: None

    def response_template_parser(
        tokenizer: Any, tools: Any = None, *args: Any, response_template: Any = None, **kwargs: Any
    ) -> Any:
        """As served with ``--enable-auto-tool-choice --tool-call-parser streaming_json_hf`` and, where the
        template has a reasoning field, ``--reasoning-parser streaming_json_hf``: ours reads the template from the
        tokenizer (the tests' ``response_template=`` is the one their tokenizer carries); ``enable_auto_tools`` is
        the server's flag, on."""
        global _ran_ours
        _ran_ours = True
        kwargs.pop("enable_auto_tools", None)
        reasoning = compile_response_template(tokenizer).reasoning_field is not None
        parser_class = ParserManager.get_parser(
            tool_parser_name=ours.HF_PARSER_NAME,
            reasoning_parser_name=ours.HF_PARSER_NAME if reasoning else None,
            enable_auto_tools=True,
        )
        assert parser_class is not None
        return parser_class(tokenizer, tools, *args, **kwargs)

    module.ResponseTemplateParser = response_template_parser


def _install_template_reads() -> None:
    """Each output vLLM's ``hf`` parser reads to its end with ``ResponseParser`` (its copy of transformers'), with a
    template we compile, read again by ours at every split (``response_template_reads.py``): what each test's reads
    gave goes into its report entry (``reads``)."""
    import vllm.parser.response_template as module

    global _reads
    reads_module = _load("response_template_reads")
    _reads = reads_module.Reads()
    load = module.load_response_template
    theirs = module.ResponseParser

    def load_response_template(spec: Any) -> Any:
        template = load(spec)
        template.streaming_json_source = json.loads(json.dumps(spec))  # the dict it was loaded from
        return template

    class ResponseParser(theirs):  # type: ignore[misc,valid-type]
        def __init__(self, template: Any, prefix: Any = None, *args: Any, tools: Any = None, **kwargs: Any) -> None:
            super().__init__(template, prefix, *args, tools=tools, **kwargs)
            self._read = (getattr(template, "streaming_json_source", template), prefix, tools, bool(args or kwargs))
            self._fed: list[str] = []

        def feed(self, text: Any) -> Any:
            self._fed.append(text)
            return super().feed(text)

        def finalize(self) -> Any:
            result = super().finalize()
            source, prefix, tools, other_arguments = self._read
            if isinstance(source, dict) and not other_arguments:
                _reads.check(source, "".join(self._fed), result[0], prefix=prefix, tools=tools)
            return result

    module.load_response_template = load_response_template
    module.ResponseParser = ResponseParser


def _counted(parser_class: Any) -> Any:
    """``parser_class``, whose making says that the test running ran ours."""
    original_init = parser_class.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        global _ran_ours
        _ran_ours = True
        original_init(self, *args, **kwargs)

    parser_class.__init__ = init
    return parser_class


def pytest_configure(config: pytest.Config) -> None:
    _install_tokenizer(Path(config.rootpath))
    if os.environ.get("STREAMING_JSON_VLLM_PARSERS") == "ours":
        _install_ours()
        _install_ours_hf()
    else:
        _install_template_reads()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    global _ran_ours, _reads
    entry = _outcomes.setdefault(report.nodeid, {"outcome": "passed", "ours": False})
    entry["ours"] = entry["ours"] or _ran_ours
    if report.when == "teardown" and _reads is not None and (_reads.compared or _reads.refused):
        entry["reads"] = {
            "compared": len(_reads.compared),
            "refused": _reads.refused,
            "mismatches": [repr(mismatch)[:1500] for mismatch in _reads.mismatches],
        }
        _reads = _reads.__class__()
    if report.when == "teardown":
        _ran_ours = False  # (a module's or class's fixture made for this test is not the next one's)
    xfail = hasattr(report, "wasxfail")
    if report.failed and str(report.longrepr).startswith("[XPASS(strict)]"):
        entry["outcome"] = "xpassed"  # a test vLLM marks as its parser's known failure, passed
    elif report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
        entry["message"] = str(report.longrepr)[-2000:]
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "xfailed" if xfail else "skipped"
    elif report.when == "call" and report.passed and xfail:
        entry["outcome"] = "xpassed"


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("STREAMING_JSON_VLLM_REPORT")
    if path:
        Path(path).write_text(json.dumps(_outcomes, indent=1), "utf-8")
