"""The package's floors: every module of ``streaming_json`` sits on a floor, and imports only modules on floors below
its own; no import circle.

The imports are read from the source, all of them: at module level, deferred inside functions, under
``TYPE_CHECKING``, and in the compiled core's ``.pyx``/``.pxd`` and its stub. A module the table does not place
fails the test: a new module gets a floor where it is written, so the architecture stays written down in one place.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Optional

import streaming_json

PACKAGE = "streaming_json"
ROOT = Path(streaming_json.__file__).resolve().parent

# The floors, lowest first; a module may import only modules on lower floors (so the modules of one floor are
# independent of each other, the two twin cores above all). Names are relative to the package ("" is the package
# itself, its ``__init__``); "pydantic.*" places every module of the subpackage that no other entry names.
FLOORS: tuple[tuple[str, ...], ...] = (
    # What every floor agrees on: the version; the aliases, MISSING, the messages and the cost model's numbers.
    ("_version", "_shared"),
    # Strict parsing of complete text (the cores' tool-call streams end with it).
    ("_repair",),
    # The twin cores: the same state machine, compiled and in pure Python.
    ("_pure", "_core"),
    # Which core the package uses.
    ("_backend",),
    # Layers over one parser, per event: completed values, the documents of complete text; the JSON Patch operations of
    # a parser's changes.
    ("_completed", "_json_patch"),
    # Typed streaming (optional extra: pydantic). Annotations, policies, shapes, twins and results know no node; nodes
    # know no plan; coercion walks the plan's nodes.
    ("pydantic._annotations", "pydantic._result"),
    ("pydantic._policies",),
    ("pydantic._shapes",),
    ("pydantic._twins",),
    ("pydantic._nodes",),
    ("pydantic._objects", "pydantic._collections", "pydantic._unions"),
    ("pydantic._plan", "pydantic._coerce"),
    ("pydantic._stream", "pydantic._items"),
    ("pydantic", "pydantic.*"),
    # LLM SDKs' stream events: reading fields and sources; the accumulators; one module per API; the facade.
    ("integrations._fields", "integrations._sources", "integrations._sse", "integrations._paths"),
    ("integrations._tool_calls", "integrations._structured_output"),
    (
        "integrations.anthropic",
        "integrations.openai_chat",
        "integrations.openai_responses",
        "integrations.gemini",
        "integrations.bedrock",
        "integrations.cohere",
        "integrations.ollama",
    ),
    # Frameworks: their events read as the APIs' are; LangChain's Runnable parsers (they import LangChain) above the
    # chunk reader, and the module that offers both above them.
    ("integrations._langchain_messages", "integrations._langchain_partial", "integrations.pydantic_ai"),
    ("integrations._langchain_parsers",),
    ("integrations.langchain",),
    ("integrations", "integrations.*"),
    # Model output, for inference servers: a response_template (transformers' declarative output format) compiled
    # into a format's fields; the events, the formats as data and the marker search; the stream and the renderers;
    # transformers' ResponseParser over the stream; the facade.
    ("model_output._response_template",),
    ("model_output._events", "model_output._formats", "model_output._markers", "model_output._schemas"),
    # A parameter's text as JSON, by the types the schemas give; the stream's per-piece fast paths, compiled (over the
    # compiled core's parser, through its .pxd) and in pure Python; the structural tags a server constrains decoding
    # with, from each format's data.
    ("model_output._values", "model_output._relay", "model_output._relay_pure", "model_output._structural_tags"),
    ("model_output._stream", "model_output._renderers", "model_output._servers"),
    ("model_output._response_parser",),
    ("model_output",),
    # The inference servers' adapters (they import vLLM or SGLang: nothing of the package imports them), and the
    # file vLLM's --tool-parser-plugin loads.
    ("model_output.vllm", "model_output.sglang"),
    ("model_output._vllm_plugin",),
    # Live values to a browser: the op events and where the JavaScript client is; the op streams of every source (over
    # the adapters) and the server-sent events that carry them; the wire shapes and the Starlette response; the facade.
    ("patches._events", "patches._static"),
    ("patches._sources", "patches._wire"),
    ("patches._agui", "patches._ai_sdk", "patches._starlette"),
    ("patches",),
    # The package's face: it only re-exports (checked below), and no module of the package imports it.
    ("",),
    # The command line.
    ("__main__",),
)


# --- Reading the imports ------------------------------------------------------------------------------------------

_TRIPLE_QUOTED = re.compile(r'(?s)""".*?"""|\'\'\'.*?\'\'\'')
_CYTHON_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+c?import\b|c?import[ \t]+\w)")


def module_name(path: Path) -> str:
    """The module a source file belongs to, relative to the package (``_core.pyx`` and ``_core.pyi``: ``_core``)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    """Every source of the package: Python modules and stubs, and the compiled core's Cython source."""
    suffixes = {".py", ".pyi", ".pyx", ".pxd"}
    return sorted(path for path in ROOT.rglob("*") if path.suffix in suffixes and "__pycache__" not in path.parts)


def import_statements(path: Path) -> Iterator[ast.stmt]:
    """Every import statement of a source file, at any depth. Cython is not Python: its import lines (``cimport``
    included) are found outside triple-quoted strings and parsed as Python."""
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".py", ".pyi"):
        tree: ast.AST = ast.parse(text, str(path))
        yield from (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))
        return
    text = _TRIPLE_QUOTED.sub(lambda match: "\n" * match.group().count("\n"), text)
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        if not _CYTHON_IMPORT.match(line):
            continue
        statement = line.split("#")[0]
        while statement.count("(") > statement.count(")") or statement.rstrip().endswith("\\"):
            statement += "\n" + lines[number].split("#")[0]
            number += 1
        statement = re.sub(r"\bcimport\b", "import", statement.strip())
        yield from ast.parse(statement, str(path)).body


def imported_modules(importer: str, is_package: bool, statement: ast.stmt, modules: Iterable[str]) -> Iterator[str]:
    """The package's modules that ``statement``, in module ``importer``, imports (others are left out)."""
    known = set(modules)

    def inside(absolute: str) -> Optional[str]:
        if absolute == PACKAGE:
            return ""
        if absolute.startswith(PACKAGE + "."):
            return absolute[len(PACKAGE) + 1 :]
        return None

    if isinstance(statement, ast.Import):
        for alias in statement.names:
            found = inside(alias.name)
            if found is not None:
                yield found
        return
    assert isinstance(statement, ast.ImportFrom)
    if statement.level:
        package = [PACKAGE, *importer.split(".")] if importer else [PACKAGE]
        if not is_package:
            package.pop()
        package = package[: len(package) - (statement.level - 1)]
        source = ".".join(package + ([statement.module] if statement.module else []))
    else:
        source = statement.module or ""
    base = inside(source)
    if base is None:
        return
    for alias in statement.names:
        submodule = f"{base}.{alias.name}" if base else alias.name
        yield submodule if submodule in known else base  # ``from package import module`` imports the module


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports."""
    files = source_files()
    modules = {module_name(path) for path in files}
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for path in files:
        importer = module_name(path)
        for statement in import_statements(path):
            is_package = path.stem == "__init__"
            graph[importer].update(imported_modules(importer, is_package, statement, modules))
    for module, imported in graph.items():
        imported.discard(module)  # an ``__init__`` importing its own names
    return graph


# --- The checks ---------------------------------------------------------------------------------------------------


def floor_of(module: str, floors: tuple[tuple[str, ...], ...] = FLOORS) -> Optional[int]:
    """The floor a module is on: the entry naming it, else the nearest ``package.*`` entry above it."""
    for number, names in enumerate(floors):
        if module in names:
            return number
    parts = module.split(".")
    for length in range(len(parts) - 1, 0, -1):
        wildcard = ".".join(parts[:length]) + ".*"
        for number, names in enumerate(floors):
            if wildcard in names:
                return number
    return None


def find_circle(graph: Mapping[str, Iterable[str]]) -> Optional[list[str]]:
    """An import circle (its modules, the first again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(module: str) -> Optional[list[str]]:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                return path[path.index(imported) :] + [imported]
            if imported not in state:
                found = walk(imported)
                if found is not None:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = walk(module)
            if found is not None:
                return found
    return None


def imports_not_going_down(
    graph: Mapping[str, Iterable[str]], floors: tuple[tuple[str, ...], ...] = FLOORS
) -> list[str]:
    """Every import of a module on the same floor or a higher one, as ``importer (floor) -> imported (floor)``."""
    wrong = []
    for importer in sorted(graph):
        for imported in sorted(graph[importer]):
            below, above = floor_of(importer, floors), floor_of(imported, floors)
            if below is not None and above is not None and above >= below:
                wrong.append(f"{importer or PACKAGE} (floor {below}) -> {imported or PACKAGE} (floor {above})")
    return wrong


def _show(module: str) -> str:
    return f"{PACKAGE}.{module}" if module else PACKAGE


def test_every_module_has_a_floor() -> None:
    unplaced = [_show(module) for module in sorted(import_graph()) if floor_of(module) is None]
    assert not unplaced, f"give these modules a floor in FLOORS (tests/test_layers.py): {unplaced}"


def test_no_import_circle() -> None:
    circle = find_circle(import_graph())
    assert circle is None, "import circle: " + " -> ".join(_show(module) for module in circle)


def test_imports_go_down_the_floors() -> None:
    wrong = imports_not_going_down(import_graph())
    assert not wrong, "imports from a floor to one not below it:\n" + "\n".join(wrong)


def test_the_package_facade_only_re_exports() -> None:
    """``streaming_json/__init__.py`` holds its docstring, imports from the floors below and ``__all__``: nothing
    is defined or decided there."""
    tree = ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8"))
    others = []
    for number, statement in enumerate(tree.body):
        if number == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # the docstring
        if isinstance(statement, ast.ImportFrom) and statement.level == 1:
            continue
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            continue
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if all(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
                continue
        others.append(f"line {statement.lineno}: {ast.unparse(statement)[:60]}")
    assert not others, others


def test_the_graph_holds_the_imports_of_every_kind() -> None:
    """The reader finds deferred, ``TYPE_CHECKING`` and Cython imports (were it to miss them, the checks above would
    pass on a house with circles)."""
    graph = import_graph()
    assert "_backend" in graph["_completed"]  # a module-level import
    assert {"_pure", "_core"} <= graph["_backend"]  # deferred, inside a function; and under TYPE_CHECKING
    assert {"_shared", "_repair"} <= graph["_core"]  # from the .pyx
    assert "pydantic" in graph["integrations._tool_calls"]  # deferred: pydantic is an optional dependency


def test_the_checks_catch_a_circle_and_an_upward_import() -> None:
    floors = (("a",), ("b",), ("c",))
    fine = {"a": set(), "b": {"a"}, "c": {"a", "b"}}
    assert find_circle(fine) is None and imports_not_going_down(fine, floors) == []
    circle = {"a": {"c"}, "b": {"a"}, "c": {"b"}}  # a deferred import of a higher floor closes one
    assert find_circle(circle) == ["a", "c", "b", "a"]
    assert imports_not_going_down(circle, floors) == ["a (floor 0) -> c (floor 2)"]
    assert imports_not_going_down({"a": set(), "b": {"b2"}, "b2": set()}, (("a",), ("b", "b2"))) == [
        "b (floor 1) -> b2 (floor 1)"
    ]  # one floor's modules do not import each other
