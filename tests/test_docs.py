"""README.md and the pages of docs/: every example runs as written, on both backends, prints what the page shows and
passes ``mypy --strict``; the few that cannot run say why; README stays short; the API reference, read from the
pure-Python twin, says what the compiled core's docstrings say. How examples are found and run: docs_examples.py."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import streaming_json

from . import docs_examples
from .backends import AVAILABLE_BACKENDS, needs_both_backends
from .docs_examples import ROOT, ExampleFailed, ReplayServer, blocks, page_name, pages, run_page

PAGES = pages()


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    with ReplayServer() as server:
        yield server


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_page_examples_run(page: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the backend the package picked (``make test``: the compiled core; ``make test-pypy``: the pure one)."""
    for name, value in replay.environment.items():
        monkeypatch.setenv(name, value)
    try:
        run_page(page)
    except ExampleFailed as failure:
        if failure.missing_module is not None:
            # The examples before it ran: a page puts what needs an optional package after what does not.
            pytest.skip(f"the examples from {failure.where} on need {failure.missing_module}, not installed here")
        raise


@pytest.mark.slow  # every page again, in a process of its own
@needs_both_backends
def test_page_examples_run_on_the_pure_backend(replay: ReplayServer) -> None:
    """Every page again, in a process that imported the pure backend (the one above imported the compiled core)."""
    environment = {**os.environ, **replay.environment, "STREAMING_JSON_PURE_PYTHON": "1"}
    environment.pop("STREAMING_JSON_REQUIRE_COMPILED", None)
    result = subprocess.run(
        [sys.executable, "-W", "error", "-m", "tests.docs_examples", *map(page_name, PAGES)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["backend"] == "python"
    assert not report["failures"], "\n\n".join(report["failures"].values())


def test_every_example_runs_or_says_why() -> None:
    unmarked = []
    for page in PAGES:
        for block in blocks(page):
            reason = block.not_run_reason
            if reason is not None:
                assert len(reason.split()) >= 3, f"{block.where}: say why the block does not run"
            elif block.language in docs_examples.SHELL_LANGUAGES:
                unmarked.append(block.where)
            if block.is_output:
                assert block.language == "text", f"{block.where}: an output block is a text block"
    assert not unmarked, (
        f"shell blocks that neither run nor say why: {unmarked}; write them as console blocks with their output "
        "(`$ command`, then what it prints), or mark them `<!-- not run: why -->`"
    )


def test_readme_is_short_and_gives_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 200, "README is the first page: what it is, install, examples, links"
    assert "make run" in readme and "make test" in readme


# --- The harness fails where an example breaks -----------------------------------------------------------------------


def _page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_a_failing_example_fails_at_its_line_in_the_page(tmp_path: Path) -> None:
    page = _page(tmp_path, "# A page\n\n```python\nvalue = 1\n\nassert value == 2\n```\n")
    with pytest.raises(ExampleFailed, match=r"page\.md:4 raised") as failure:
        run_page(page)
    assert f'File "{page}", line 6' in str(failure.value)  # the traceback points into the Markdown


def test_a_page_that_shows_other_output_than_printed_fails(tmp_path: Path) -> None:
    shown = "```python\nfor n in range(2):\n    print(n)\n```\n\n<!-- output -->\n```text\n0\n2\n```\n"
    with pytest.raises(ExampleFailed, match=r"(?s)printed other than the page shows.*-2.*\+1"):
        run_page(_page(tmp_path, shown))
    run_page(_page(tmp_path, shown.replace("0\n2\n", "0\n1\n")))


def test_a_console_block_checks_each_command_and_its_output(tmp_path: Path) -> None:
    console = "```console\n$ printf 'a\\n' > f\n$ cat f\nb\n```\n"
    with pytest.raises(ExampleFailed, match=r"`cat f` .* printed\na\n\nwhere the page shows\nb\n"):
        run_page(_page(tmp_path, console))
    run_page(_page(tmp_path, console.replace("\nb\n", "\na\n")))


def test_blocks_marked_not_run_do_not_run(tmp_path: Path) -> None:
    run_page(_page(tmp_path, "<!-- not run: it needs a key to a real account -->\n```python\nraise SystemExit\n```\n"))


# --- The API reference ------------------------------------------------------------------------------------------------


def _docstring(obj: object, name: str) -> str:
    """The docstring of ``obj`` without the signature line that Cython's ``embedsignature`` puts first."""
    text = inspect.getdoc(obj) or ""
    first, _, rest = text.partition("\n")
    if re.fullmatch(rf"(\w+\.)?{re.escape(name)}\(.*\)", first):
        return rest.lstrip("\n")
    return text


@needs_both_backends
@pytest.mark.parametrize("name", sorted(AVAILABLE_BACKENDS["python"].__all__))
def test_the_compiled_core_has_the_docstrings_the_reference_shows(name: str) -> None:
    """``make docs`` reads the reference from the pure-Python twin; a user of the compiled core reads the same."""
    pure: ModuleType = AVAILABLE_BACKENDS["python"]
    compiled: ModuleType = AVAILABLE_BACKENDS["cython"]
    pure_class, compiled_class = getattr(pure, name), getattr(compiled, name)
    assert _docstring(compiled_class, name) == _docstring(pure_class, name)
    for member, value in vars(pure_class).items():
        if member.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property)):
            continue
        assert _docstring(getattr(compiled_class, member), member) == _docstring(value, member), f"{name}.{member}"


def test_the_reference_documents_every_public_name() -> None:
    """Each name in ``__all__`` of the public modules has an entry in docs/reference/ (autodoc or ``py:data``)."""
    reference = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "docs" / "reference").glob("*.md"))
    modules = {"streaming_json": streaming_json.__all__}
    public = ("streaming_json.integrations", "streaming_json.pydantic")
    for module in (*public, "streaming_json.integrations.langchain", "streaming_json.integrations.pydantic_ai"):
        try:
            modules[module] = __import__(module, fromlist=["__all__"]).__all__
        except ImportError:  # pydantic missing: its module cannot be imported, nor documented
            continue
    missing = [
        f"{module}.{name}"
        for module, names in modules.items()
        for name in names
        if not re.search(rf"^\.\. (auto\w+|py:data):: {re.escape(name)}\b", reference, flags=re.MULTILINE)
    ]
    assert not missing, f"add them to docs/reference/: {missing}"


# --- Types ------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_package_and_examples_pass_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    files = []
    for page in PAGES:
        # The page's python blocks as one module, each at its own lines: mypy's messages point into the Markdown.
        source = ""
        for block in blocks(page):
            if block.language == "python" and block.not_run_reason is None:
                source += "\n" * (block.line - 1 - source.count("\n")) + block.code
        if source:
            path = tmp_path / (re.sub(r"\W", "_", page_name(page)) + ".py")
            path.write_text(source, encoding="utf-8")
            files.append(str(path))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--ignore-missing-imports",
            "--no-incremental",
            str(ROOT / "streaming_json"),
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:]
