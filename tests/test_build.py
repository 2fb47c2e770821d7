"""Packaging: the compiled core builds into a wheel that installs and passes the suite in a fresh environment; a
build without a compiler still installs, with the pure backend and one warning line; other interpreters than CPython
build the pure backend without trying to compile; an sdist carries the generated C and builds without Cython.

These tests build and install the package, so they are marked slow; ``make test`` and ``make test-pypy`` run them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

from .backends import CPYTHON, IMPLEMENTATION, cpython_only

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout + result.stderr


def _source_copy(tmp_path: Path) -> Path:
    """The project as a fresh clone has it: no build products, no virtual environment."""
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns(
        ".venv*",  # .venv and .venv-pypy
        "build",
        "dist",
        "*.egg-info",
        "*.so",
        "_core.c",
        "_core.html",
        "__pycache__",
        ".git",
        ".pytest_cache",
        ".hypothesis",
        ".benchmarks",
    )
    shutil.copytree(ROOT, source, ignore=ignore)
    return source


def _build_wheel(source: Path, out: Path, env: dict[str, str]) -> tuple[Path, str]:
    # The build uses this environment's setuptools and Cython (no download), as `make` installs them.
    log = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-v", "-w", str(out), str(source)],
        cwd=source,
        env=env,
    )
    wheels = list(out.glob("streaming_json-*.whl"))
    assert len(wheels) == 1, log[-2000:]
    assert "would be ignored" not in log, log[-3000:]  # setuptools: a folder with package data is not a package
    return wheels[0], log


def _fresh_environment(path: Path) -> Path:
    """A new virtual environment without pip of its own (installing pip takes 10 to 20 s): see ``_pip``."""
    venv.create(path, with_pip=False, clear=True)
    return path / "bin" / "python"


def _pip(python: Path) -> list[str]:
    """This environment's pip, working on the environment of ``python``."""
    return [sys.executable, "-m", "pip", "--python", str(python)]


WHEEL_SUITE = [
    "tests/test_conformance.py",
    "tests/test_twins.py",
    "tests/test_cli.py",
    "tests/test_cli_modes.py",
    "tests/test_docs.py",
    "tests/test_done_events.py",
    "tests/test_documents.py",
    "tests/test_completed.py",
    "tests/test_tool_calls.py",
]


@cpython_only("the compiled core is built on CPython only")
def test_wheel_installs_into_a_fresh_environment_and_passes_the_suite(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    wheel, _ = _build_wheel(source, tmp_path / "dist", dict(os.environ))
    assert "-cp3" in wheel.name and "none-any" not in wheel.name, f"not a compiled wheel: {wheel.name}"
    python = _fresh_environment(tmp_path / "env")
    _run([*_pip(python), "install", "--quiet", str(wheel), "pytest", "hypothesis"], cwd=tmp_path)
    # The suite runs from a folder of its own, so `import streaming_json` can only find the installed package.
    tests = tmp_path / "suite" / "tests"
    shutil.copytree(source / "tests", tests)
    shutil.copy(source / "README.md", tests.parent)  # the examples of README and docs/ are part of the suite
    shutil.copytree(source / "docs", tests.parent / "docs")
    shutil.copy(source / "pyproject.toml", tests.parent)  # the same pytest configuration (strict, warnings are errors)
    # The hypothesis tests at a quarter of their examples: this run checks the installed package, and the main run
    # has just run them in full on the same code.
    env = dict(os.environ, STREAMING_JSON_REQUIRE_COMPILED="1", STREAMING_JSON_EXAMPLES_SCALE="0.25")
    output = _run(
        [str(python), "-c", "import streaming_json, sys; print(streaming_json.__file__, streaming_json.BACKEND)"],
        cwd=tests.parent,
        env=env,
    )
    assert "site-packages" in output and "cython" in output, output
    # What the wheel carries, checked from the installed files: the compiled core's reading (the conformance cases,
    # both backends' twins), the command line and its bundled demo data, the README's examples, the new readers. The
    # main run has just run the rest of the suite on the same code.
    _run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *WHEEL_SUITE],
        cwd=tests.parent,
        env=env,
        timeout=1800,
    )


@cpython_only("elsewhere no build compiles (the next test)")
@pytest.mark.parametrize("how", ["no compiler", "STREAMING_JSON_NO_EXTENSIONS"])
def test_a_build_without_the_compiled_core_installs_the_pure_backend(tmp_path: Path, how: str) -> None:
    source = _source_copy(tmp_path)
    env = dict(os.environ)
    if how == "no compiler":
        env["CC"] = "/bin/false"
    else:
        env["STREAMING_JSON_NO_EXTENSIONS"] = "1"
    wheel, log = _build_wheel(source, tmp_path / "dist", env)
    if how == "no compiler":
        warnings = [line for line in log.splitlines() if "WARNING: streaming_json:" in line]
        assert len(warnings) == 1 and "pure-Python backend" in warnings[0], log[-3000:]
    python = _fresh_environment(tmp_path / "env")
    _run([*_pip(python), "install", "--quiet", "--no-deps", str(wheel)], cwd=tmp_path)
    output = _run(
        [
            str(python),
            "-c",
            (
                'import streaming_json as s; p = s.StreamingJsonParser(); p.append(\'{"a": [1, "b\'); '
                "print(s.BACKEND, p.snapshot())"
            ),
        ],
        cwd=tmp_path,
    )
    assert output.strip() == "python {'a': [1, 'b']}"


@pytest.mark.skipif(CPYTHON, reason="about interpreters other than CPython (make test-pypy runs it)")
def test_other_interpreters_build_the_pure_backend_without_trying_to_compile(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    wheel, log = _build_wheel(source, tmp_path / "dist", dict(os.environ))
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert "WARNING: streaming_json:" not in log and "building 'streaming_json._core'" not in log, log[-3000:]
    python = _fresh_environment(tmp_path / "env")
    _run([*_pip(python), "install", "--quiet", "--no-deps", str(wheel)], cwd=tmp_path)
    output = _run(
        [str(python), "-c", "import platform, streaming_json as s; print(platform.python_implementation(), s.BACKEND)"],
        cwd=tmp_path,
    )
    assert output.split() == [IMPLEMENTATION, "python"]


@cpython_only("the sdist carries the C that Cython generates for CPython")
def test_sdist_carries_the_generated_c_and_builds_without_cython(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    _run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")], cwd=source)
    (sdist,) = (tmp_path / "sdist").glob("streaming_json-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    expected = [
        "_core.c",
        "_core.pyx",
        "_core.pxd",
        "_core.pyi",
        "py.typed",
        "_version.py",
        "data/sample_tool_call.json",
    ]
    assert {f"streaming_json/{name}" for name in expected} <= names, sorted(names)
    assert "tests/test_build.py" in names and not any(name.endswith(".so") for name in names), sorted(names)
    # A build environment with setuptools but no Cython compiles the generated C.
    python = _fresh_environment(tmp_path / "env")
    _run([*_pip(python), "install", "--quiet", "setuptools>=77", "wheel"], cwd=tmp_path)
    _run(
        [str(python), "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('Cython') is not None)"],
        cwd=tmp_path,
    )
    _run([*_pip(python), "install", "--quiet", "--no-build-isolation", "--no-deps", str(sdist)], cwd=tmp_path)
    output = _run([str(python), "-c", "import streaming_json as s; print(s.BACKEND)"], cwd=tmp_path)
    assert output.strip() == "cython"


@cpython_only("the sdist is made on CPython")
def test_no_sdist_without_the_generated_c(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    env = dict(os.environ, STREAMING_JSON_NO_EXTENSIONS="1")  # no cythonize: no generated C
    command = [sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")]
    result = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "streaming_json/_core.c is missing" in result.stderr, result.stderr[-2000:]
    assert not list((tmp_path / "sdist").glob("*.tar.gz"))
