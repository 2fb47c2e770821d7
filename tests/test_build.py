"""Packaging: what `make wheels` builds is what a user can install.

- The wheelhouse holds the sdist, the compiled wheel repaired to its manylinux tag (``auditwheel show`` agrees), and
  the pure ``py3-none-any`` wheel, all of this version.
- Each wheel installs into a fresh virtual environment where no compiler can run and nothing is downloaded, and
  imports its backend: the compiled core from the manylinux wheel, the pure one from the other, on this CPython too.
  The installed compiled wheel passes the suite's tests of what it carries.
- The sdist carries the generated C and builds without Cython; where the compiler fails, the build installs the pure
  backend with one warning line; no sdist is made without the C; other interpreters than CPython build the pure
  backend without trying to compile.

``make test`` builds the wheels first and names their folder in ``STREAMING_JSON_WHEELHOUSE``; run alone, these
tests build them with ``make wheels`` into a folder of their own. They build and install, so they are marked slow.
"""

from __future__ import annotations

import importlib
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

import streaming_json

from .backends import CPYTHON, IMPLEMENTATION, NO_COMPILED_CORE, cpython_only

ROOT = Path(__file__).resolve().parent.parent
VERSION = streaming_json.__version__
pytestmark = pytest.mark.slow

# Where no compiler can run: a build step that tried one would fail, and pip may not reach an index.
NO_COMPILER = {"CC": "false", "CXX": "false", "LDSHARED": "false", "PIP_NO_INDEX": "1"}
# A small parse, and the backend that read it.
PARSE = (
    'import streaming_json as s; p = s.StreamingJsonParser(); p.append(\'{"a": [1, "b\'); '
    "print(s.BACKEND, p.snapshot())"
)


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout + result.stderr


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder `make wheels` built: ``make test``'s, or one built here."""
    given = os.environ.get("STREAMING_JSON_WHEELHOUSE")
    if given:
        return Path(given)
    folder = tmp_path_factory.mktemp("wheelhouse")
    # The running interpreter's tools; -o: the environment is this one, whatever make thinks of its stamp.
    binaries = Path(sys.executable).parent
    _run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "wheels", f"DIST={folder}", f"BIN={binaries}"], ROOT
    )
    return folder


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"{pattern} in {folder}: {[path.name for path in sorted(folder.iterdir())]}"
    return found[0]


# The CPythons `make wheels` builds a compiled wheel for (and `make test-versions` tests): the Makefile's list.
_LISTED = re.search(r"^TEST_VERSIONS \?= (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
WHEEL_VERSIONS = _LISTED.group(1).split() if _LISTED else []


def _compiled_wheel(wheelhouse: Path, version: str = f"{sys.version_info[0]}.{sys.version_info[1]}") -> Path:
    tag = "cp" + version.replace(".", "")
    return _one(wheelhouse, f"streaming_json-{VERSION}-{tag}-{tag}-*manylinux*.whl")


def _pure_wheel(wheelhouse: Path) -> Path:
    return _one(wheelhouse, f"streaming_json-{VERSION}-py3-none-any.whl")


def _sdist(wheelhouse: Path) -> Path:
    return _one(wheelhouse, f"streaming_json-{VERSION}.tar.gz")


def _fresh_environment(path: Path) -> Path:
    """A new virtual environment without pip of its own (installing pip takes 10 to 20 s): see ``_pip``."""
    venv.create(path, with_pip=False, clear=True)
    return path / "bin" / "python"


def _pip(python: Path) -> list[str]:
    """This environment's pip, working on the environment of ``python``."""
    return [sys.executable, "-m", "pip", "--python", str(python)]


def _site_packages(python: Path) -> Path:
    output = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], python.parent)
    return Path(output.strip())


def _installed(tmp_path: Path, wheel: Path) -> Path:
    """A fresh environment with ``wheel`` installed as a user would, where no compiler runs and no index is read."""
    python = _fresh_environment(tmp_path / "env")
    env = dict(os.environ, **NO_COMPILER)
    _run(
        [*_pip(python), "install", "--quiet", "--no-index", "--no-deps", "--only-binary=:all:", str(wheel)],
        tmp_path,
        env,
    )
    return python


@cpython_only("auditwheel repairs the compiled wheel, which CPython builds")
def test_the_wheelhouse_holds_the_sdist_and_both_wheels(wheelhouse: Path) -> None:
    compiled = _compiled_wheel(wheelhouse)
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    machine = platform.machine()
    # auditwheel names every tag the wheel meets: the legacy manylinux2014 alias and the PEP 600 tag.
    pattern = (
        rf"streaming_json-{re.escape(VERSION)}-{tag}-{tag}-(manylinux\w*_{machine}\.)*manylinux_2_\d+_{machine}\.whl"
    )
    assert re.fullmatch(pattern, compiled.name), compiled.name
    _pure_wheel(wheelhouse)
    _sdist(wheelhouse)
    others = {_compiled_wheel(wheelhouse, version) for version in WHEEL_VERSIONS} - {compiled}
    assert len(others) == len(WHEEL_VERSIONS) - 1 and WHEEL_VERSIONS, WHEEL_VERSIONS  # one a version, this one's too
    assert len(list(wheelhouse.iterdir())) == 2 + len(WHEEL_VERSIONS), sorted(p.name for p in wheelhouse.iterdir())
    with zipfile.ZipFile(compiled) as archive:
        libraries = sorted(name.split(".")[0] for name in archive.namelist() if name.endswith(".so"))
    assert libraries == ["streaming_json/_core", "streaming_json/model_output/_relay"], libraries  # nothing grafted
    # auditwheel itself agrees: the libraries the core links against are the system's, and the tag is the one named.
    auditwheel = Path(sys.executable).parent / "auditwheel"
    report = " ".join(_run([str(auditwheel), "show", str(compiled)], wheelhouse).split())
    best = re.search(r'is consistent with the following platform tag: "(manylinux_2_\d+_\w+)"', report)
    assert best is not None and best.group(1) in compiled.name, report


@cpython_only("the compiled wheel is CPython's; the pure one is checked on CPython, where it must not compile")
@pytest.mark.parametrize("kind", ["compiled", "pure"])
def test_each_wheel_installs_without_a_compiler_and_reads_json(wheelhouse: Path, tmp_path: Path, kind: str) -> None:
    wheel = _compiled_wheel(wheelhouse) if kind == "compiled" else _pure_wheel(wheelhouse)
    python = _installed(tmp_path, wheel)
    env = dict(os.environ, **NO_COMPILER)
    env.pop("STREAMING_JSON_PURE_PYTHON", None)
    backend = "cython" if kind == "compiled" else "python"
    assert _run([str(python), "-c", PARSE], tmp_path, env).strip() == f"{backend} {{'a': [1, 'b']}}"
    where = _run(
        [
            str(python),
            "-c",
            "import importlib.metadata, importlib.util, streaming_json; "
            "print(streaming_json.__file__, importlib.metadata.version('streaming-json'), "
            "importlib.util.find_spec('Cython') is None)",
        ],
        tmp_path,
        env,
    ).split()
    assert where[0].startswith(str(_site_packages(python))) and where[1:] == [VERSION, "True"], where


@cpython_only("the compiled wheels are CPython's")
@pytest.mark.parametrize("version", WHEEL_VERSIONS)
def test_each_versions_wheel_installs_and_imports_the_compiled_core(
    wheelhouse: Path, tmp_path: Path, version: str
) -> None:
    """Each CPython's compiled wheel, installed on that CPython where no compiler runs, reads JSON with the compiled
    core (the suites run on each version in `make test-versions`)."""
    found = _run(["make", "--no-print-directory", "-s", f"python-for-{version}"], ROOT).strip()
    assert found, f"CPython {version} not found"
    python = tmp_path / "env" / "bin" / "python"
    _run([found, "-m", "venv", "--without-pip", str(python.parent.parent)], tmp_path)
    env = dict(os.environ, **NO_COMPILER)
    wheel = _compiled_wheel(wheelhouse, version)
    # That CPython's own pip (this environment's may not run on an older one).
    install = [found, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index", "--no-deps", str(wheel)]
    _run(install, tmp_path, env)
    check = f"import sys; assert sys.version_info[:2] == {tuple(map(int, version.split('.')))}; {PARSE}"
    assert _run([str(python), "-c", check], tmp_path, env).strip() == "cython {'a': [1, 'b']}"


def _package_files() -> set[str]:
    """The package's files in the source tree, less what building leaves there: what a wheel must carry."""
    built = {".so", ".c", ".html", ".pyc"}
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "streaming_json").rglob("*")
        if path.is_file() and path.suffix not in built and "__pycache__" not in path.parts
    }


@cpython_only("the compiled wheel is CPython's")
@pytest.mark.parametrize("kind", ["compiled", "pure"])
def test_each_wheel_carries_every_file_of_the_package(wheelhouse: Path, kind: str) -> None:
    """Every module, subpackage, stub and data file (a subpackage missing from pyproject.toml's list would be left
    out of the wheel), and of the build products the compiled core alone."""
    wheel = _compiled_wheel(wheelhouse) if kind == "compiled" else _pure_wheel(wheelhouse)
    with zipfile.ZipFile(wheel) as archive:
        carried = {name for name in archive.namelist() if name.startswith("streaming_json/") and name[-1] != "/"}
    cores = {name for name in carried if name.endswith(".so")}
    compiled = {"streaming_json/_core.", "streaming_json/model_output/_relay."}  # the core and the layer's fast paths
    assert {name[: name.index(".") + 1] for name in cores} == (compiled if kind == "compiled" else set()), sorted(cores)
    assert carried - cores == _package_files(), (
        f"missing: {sorted(_package_files() - carried)}, extra: {sorted(carried - cores - _package_files())}"
    )


# The installed files at work: the behaviour the reference fixes, on both backends (the compiled one as repaired),
# the two backends' surfaces, the command line and its data, the examples of README and docs/. That the wheel carries
# every file is the test above; the main run has just run the rest of the suite on the same compiled C.
WHEEL_SUITE = [
    "tests/test_conformance.py",
    "tests/test_twins.py",
    "tests/test_cli.py",
    "tests/test_cli_modes.py",
    "tests/test_docs.py",
]


@cpython_only("the compiled core is built on CPython only")
def test_the_installed_compiled_wheel_passes_the_suite(wheelhouse: Path, tmp_path: Path) -> None:
    """The installed wheel at work (``WHEEL_SUITE``), from a folder where only it can be imported."""
    python = _installed(tmp_path, _compiled_wheel(wheelhouse))
    # The test tools (pytest, hypothesis, pydantic) from this environment, after the fresh one's own packages: a
    # .pth line appends a folder to sys.path and reads no .pth inside it (so not this environment's editable
    # install), and `import streaming_json` finds the wheel's files first.
    (_site_packages(python) / "zz_test_tools.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # The suite runs from a folder of its own, so `import streaming_json` can only find the installed package.
    tests = tmp_path / "suite" / "tests"
    shutil.copytree(ROOT / "tests", tests, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "README.md", tests.parent)  # the examples of README and docs/ are part of the suite
    shutil.copytree(ROOT / "docs", tests.parent / "docs", ignore=shutil.ignore_patterns("_build"))
    shutil.copy(ROOT / "pyproject.toml", tests.parent)  # the same pytest configuration (strict, warnings are errors)
    env = dict(os.environ, STREAMING_JSON_REQUIRE_COMPILED="1")
    output = _run([str(python), "-c", "import streaming_json as s; print(s.__file__, s.BACKEND)"], tests.parent, env)
    assert output.startswith(str(_site_packages(python))) and output.split()[1] == "cython", output
    _run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-m", "not slow", *WHEEL_SUITE],
        cwd=tests.parent,
        env=env,
        timeout=1800,
    )


def _setuptools_alone(tmp_path: Path) -> dict[str, str]:
    """An environment's variables that give a fresh interpreter this environment's setuptools and nothing else (no
    Cython, no wheel package): what a build without Cython has, without reaching an index."""
    folder = tmp_path / "setuptools-alone"
    folder.mkdir()
    purelib = Path(sysconfig.get_path("purelib"))
    # The dist-info too: setuptools finds its own commands (dist_info, bdist_wheel) through its entry points.
    for pattern in ("setuptools", "setuptools-*.dist-info", "pkg_resources", "_distutils_hack"):
        for path in purelib.glob(pattern):
            (folder / path.name).symlink_to(path)
    return dict(os.environ, PYTHONPATH=str(folder), PIP_NO_INDEX="1")


@cpython_only("the sdist carries the C that Cython generates for CPython")
def test_the_sdist_carries_the_generated_c_and_builds_without_cython(wheelhouse: Path, tmp_path: Path) -> None:
    sdist = _sdist(wheelhouse)
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    expected = [
        "_core.c",
        "_core.pyx",
        "_core.pxd",
        "_core.pyi",
        "model_output/_relay.c",
        "model_output/_relay.pyx",
        "py.typed",
        "_version.py",
        "data/sample_tool_call.json",
        "static/patches.js",
    ]
    assert {f"streaming_json/{name}" for name in expected} <= names, sorted(names)
    assert "tests/test_build.py" in names and not any(name.endswith(".so") for name in names), sorted(names)
    python = _fresh_environment(tmp_path / "env")
    env = _setuptools_alone(tmp_path)
    has = "import importlib.util as u; print([u.find_spec(m) is not None for m in ('setuptools', 'Cython')])"
    assert _run([str(python), "-c", has], tmp_path, env).strip() == "[True, False]"
    log = _run([*_pip(python), "install", "-v", "--no-build-isolation", "--no-deps", str(sdist)], tmp_path, env)
    for module in ("streaming_json._core", "streaming_json.model_output._relay"):
        assert f"building '{module}' extension" in log and "WARNING: streaming_json:" not in log, log[-3000:]
    assert "would be ignored" not in log, log[-3000:]  # setuptools: a folder with package data is not a package
    check = "import streaming_json as s; from streaming_json.model_output import _relay; print(s.BACKEND)"
    assert _run([str(python), "-c", check], tmp_path).strip() == "cython"


def _import_warnings(python: Path, cwd: Path, **variables: str) -> tuple[str, list[str]]:
    """What ``PARSE`` prints in ``python``, and the package's warnings on stderr (after importing it twice)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("STREAMING_JSON_")}
    env.update(variables)
    command = [str(python), "-c", f"import streaming_json; {PARSE}"]
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip(), [line for line in result.stderr.splitlines() if "streaming_json:" in line]


IMPORT_WARNING = (
    r".*RuntimeWarning: streaming_json: the compiled core could not be built when this package was installed "
    r"\(.+\), so the pure-Python backend is in use.*STREAMING_JSON_PURE_PYTHON=1.*"
)


@cpython_only("elsewhere no build compiles (test_other_interpreters_build_the_pure_backend_without_trying_to_compile)")
def test_a_build_whose_compiler_fails_installs_a_pure_wheel_and_says_so(wheelhouse: Path, tmp_path: Path) -> None:
    """No working compiler: the wheel built is the pure one (``py3-none-any``: a platform tag would claim a compiled
    core it does not carry), the build's log says why in one line (pip shows it only with ``-v``), and the package
    says so at its first import, where a user sees it, unless ``STREAMING_JSON_PURE_PYTHON=1`` chose the pure
    backend."""
    env = dict(_setuptools_alone(tmp_path), CC="/bin/false")
    python = _fresh_environment(tmp_path / "env")
    log = _run(
        [*_pip(python), "install", "-v", "--no-build-isolation", "--no-deps", str(_sdist(wheelhouse))], tmp_path, env
    )
    warnings = [line.strip() for line in log.splitlines() if "WARNING: streaming_json:" in line]
    assert len(warnings) == 1, log[-3000:]
    assert re.fullmatch(
        r"WARNING: streaming_json: the compiled core could not be built \(the command /bin/false exited with status "
        r"1\); installing the pure-Python backend",
        warnings[0],
    ), warnings
    assert f"filename=streaming_json-{VERSION}-py3-none-any.whl" in log, log[-3000:]
    (dist_info,) = _site_packages(python).glob("streaming_json-*.dist-info")
    wheel_metadata = (dist_info / "WHEEL").read_text().splitlines()
    assert "Tag: py3-none-any" in wheel_metadata and "Root-Is-Purelib: true" in wheel_metadata, wheel_metadata
    printed, import_warnings = _import_warnings(python, tmp_path)
    assert printed == "python {'a': [1, 'b']}"
    assert len(import_warnings) == 1 and re.fullmatch(IMPORT_WARNING, import_warnings[0]), import_warnings
    assert "/bin/false" in import_warnings[0]  # the reason the build recorded
    assert _import_warnings(python, tmp_path, STREAMING_JSON_PURE_PYTHON="1") == ("python {'a': [1, 'b']}", [])


@cpython_only("the pure wheel is built on purpose, and checked, on CPython")
def test_a_wheel_built_pure_on_purpose_imports_without_a_warning(wheelhouse: Path, tmp_path: Path) -> None:
    python = _installed(tmp_path, _pure_wheel(wheelhouse))
    assert _import_warnings(python, tmp_path) == ("python {'a': [1, 'b']}", [])


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
        "_relay.c",
        "_relay.html",
        "__pycache__",
        ".git",
        ".pytest_cache",
        ".hypothesis",
        ".benchmarks",
    )
    shutil.copytree(ROOT, source, ignore=ignore)
    return source


def _tree(folder: Path) -> dict[str, int]:
    """Every file under ``folder``, with its modification time."""
    return {
        path.relative_to(folder).as_posix(): path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()
    }


@cpython_only("the compiled modules are built on CPython only")
@pytest.mark.skipif(
    NO_COMPILED_CORE is not None, reason=f"an earlier build's compiled core to leave: {NO_COMPILED_CORE}"
)
def test_a_build_from_a_checkout_writes_nothing_into_it_and_takes_no_earlier_build(tmp_path: Path) -> None:
    """``pip install .`` from a checkout where an earlier build left its compiled modules (in ``build/``, as setuptools
    leaves them, and beside the sources, as an editable install does), with no working compiler: the wheel is the
    pure one, without the old modules (they would report the compiled backend), and the checkout is as it was (no
    ``build/``, egg-info or generated C written into it)."""
    source = _source_copy(tmp_path)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    earlier_build = (
        source / "build" / f"lib.{sysconfig.get_platform()}-cpython-{sys.version_info[0]}{sys.version_info[1]}"
    )
    for module in ("streaming_json._core", "streaming_json.model_output._relay"):
        compiled = Path(importlib.import_module(module).__file__ or "")
        assert compiled.name.endswith(suffix), compiled  # the compiled module, not its pure twin
        for folder in (earlier_build, source):
            target = folder.joinpath(*module.split(".")).with_name(compiled.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(compiled, target)
    before = _tree(source)
    env = dict(os.environ, **NO_COMPILER)  # this environment's setuptools and Cython build it
    command = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", str(tmp_path / "w")]
    _run([*command, str(source)], tmp_path, env)
    (wheel,) = (tmp_path / "w").glob("*.whl")
    assert wheel.name == f"streaming_json-{VERSION}-py3-none-any.whl", wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert not [name for name in names if name.endswith(".so")] and "streaming_json/COMPILE_FAILED" in names, names
    assert _tree(source) == before, sorted(set(_tree(source)) ^ set(before))
    python = _installed(tmp_path, wheel)
    assert _import_warnings(python, tmp_path)[0] == "python {'a': [1, 'b']}"


def test_an_editable_install_says_nothing_a_developer_must_act_on(tmp_path: Path) -> None:
    """``make run``'s editable install (``pip install -e``) prints no warning box: setuptools warns on every editable
    install that it maps with a meta path finder (a flat layout it was not told the root of), which pip shows since
    it relays the build's warnings; with the package root declared, it installs the plain path entry. The install
    imports the checkout's own files."""
    source = _source_copy(tmp_path)
    python = _fresh_environment(tmp_path / "env")
    env = dict(_setuptools_alone(tmp_path), STREAMING_JSON_NO_EXTENSIONS="1")  # (the build's warnings, not Cython's)
    log = _run(
        [*_pip(python), "install", "--quiet", "--no-build-isolation", "--no-deps", "-e", str(source)], tmp_path, env
    )
    assert "Warning" not in log and "!!" not in log, log
    where = _run([str(python), "-c", "import streaming_json; print(streaming_json.__file__)"], tmp_path)
    assert where.strip() == str(source / "streaming_json" / "__init__.py"), where


@cpython_only("the sdist is made on CPython")
def test_no_sdist_without_the_generated_c(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    env = dict(os.environ, STREAMING_JSON_NO_EXTENSIONS="1")  # no cythonize: no generated C
    command = [sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")]
    result = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "streaming_json/_core.c is missing" in result.stderr, result.stderr[-2000:]
    assert not list((tmp_path / "sdist").glob("*.tar.gz"))


@pytest.mark.skipif(CPYTHON, reason="about interpreters other than CPython (make test-pypy runs it)")
def test_other_interpreters_build_the_pure_backend_without_trying_to_compile(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    log = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-v", "-w", "dist", str(source)],
        cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "dist").glob("streaming_json-*.whl")
    assert wheel.name == f"streaming_json-{VERSION}-py3-none-any.whl", wheel.name
    assert "would be ignored" not in log, log[-3000:]  # setuptools: a folder with package data is not a package
    assert "WARNING: streaming_json:" not in log and "building 'streaming_json._core'" not in log, log[-3000:]
    python = _fresh_environment(tmp_path / "env")
    _run([*_pip(python), "install", "--quiet", "--no-deps", str(wheel)], cwd=tmp_path)
    output = _run(
        [str(python), "-c", "import platform, streaming_json as s; print(platform.python_implementation(), s.BACKEND)"],
        cwd=tmp_path,
    )
    assert output.split() == [IMPLEMENTATION, "python"]
