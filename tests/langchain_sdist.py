"""LangChain's own tests of the parsers this library replaces, from the sdist of the langchain-core release installed
here, run against LangChain's parsers and against ours (``tests/test_langchain_own_tests.py``).

The sdist is fetched at test time with ``pip download`` through the index pip is configured with, once: it is kept in
pytest's cache directory (``.pytest_cache``, not in git), so a second run reads it from there. None of its files is
in this repository; the test files are copied out of it into a temporary directory, with
``langchain_sdist_conftest.py`` as their ``conftest.py``, and run by pytest in a subprocess of their own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Optional

# The test files that exercise the parsers we replace (each imports one of their names), and what they import.
TEST_FILES = (
    "tests/unit_tests/output_parsers/test_json.py",
    "tests/unit_tests/output_parsers/test_openai_tools.py",
    "tests/unit_tests/output_parsers/test_pydantic_parser.py",
    "tests/unit_tests/output_parsers/test_refusal.py",
)
SUPPORT_FILES = (
    "tests/__init__.py",
    "tests/unit_tests/__init__.py",
    "tests/unit_tests/output_parsers/__init__.py",
    "tests/unit_tests/pydantic_utils.py",
)
CONFTEST = Path(__file__).with_name("langchain_sdist_conftest.py")
PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider -p no:langsmith_plugin -p no:anyio -p no:xdist -q\n"


def installed_version() -> str:
    return version("langchain-core")


def fetch_sdist(cache: Path, release: str) -> Path:
    """The sdist of langchain-core ``release``: from ``cache`` where an earlier run kept it, else downloaded by ``pip
    download`` (pip's own configuration says from where) into a directory of this call's own, then moved into
    ``cache`` whole: another process reading or clearing the cache never sees half a file, nor takes pip's."""
    name = f"langchain_core-{release}.tar.gz"
    kept = cache / name
    if kept.exists():
        return kept
    with tempfile.TemporaryDirectory(prefix="langchain-core-sdist-") as download:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
        command += ["--dest", download, f"langchain-core=={release}"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        found = list(Path(download).glob("*.tar.gz"))
        if done.returncode or len(found) != 1:
            raise RuntimeError(f"pip download of langchain-core {release}'s sdist failed:\n{done.stderr[-3000:]}")
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache / f".{name}.{os.getpid()}"
        shutil.copyfile(found[0], partial)
        os.replace(partial, kept)  # whole or not at all
    return kept


def copy_tests(sdist: Path, destination: Path) -> Path:
    """The test files (and the modules they import) out of ``sdist``, under ``destination``, with our conftest."""
    wanted = set(TEST_FILES + SUPPORT_FILES)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            relative = member.name.split("/", 1)[-1]
            if relative in wanted and member.isfile():
                target = destination / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None
                target.write_bytes(source.read())
                wanted.discard(relative)
    missing = sorted(wanted)
    if missing:
        raise FileNotFoundError(f"not in {sdist.name}: {', '.join(missing)}")
    shutil.copyfile(CONFTEST, destination / "conftest.py")
    (destination / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return destination


@dataclass(frozen=True)
class Run:
    """One run of LangChain's tests: each test's outcome (``passed``, ``failed``, ``skipped``) by node id; the tests
    that ran one of our parsers (a run against ours); the module of the class each of LangChain's parser names was
    bound to; and the backend in use."""

    outcomes: dict[str, str]
    exercised: frozenset[str]
    bound: dict[str, str]
    backend: str

    def count(self, outcome: str, file: Optional[str] = None) -> int:
        """How many tests (of one file, or of all) had ``outcome``."""
        return Counter(self._of(file).values())[outcome]

    def tests(self, file: Optional[str] = None) -> int:
        return len(self._of(file))

    def _of(self, file: Optional[str]) -> dict[str, str]:
        return {
            node: outcome for node, outcome in self.outcomes.items() if file is None or node.startswith(file + "::")
        }


def run_tests(copy: Path, ours: bool, pure: bool = False) -> Run:
    """Run the copied tests in a subprocess, against our parsers where ``ours`` (on the pure backend where ``pure``),
    else against LangChain's."""
    path = copy / f"run-{'ours' if ours else 'theirs'}{'-pure' if pure else ''}.json"
    environment = dict(os.environ, STREAMING_JSON_OUTCOMES=str(path), STREAMING_JSON_REBIND="1" if ours else "0")
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_ADDOPTS", "STREAMING_JSON_PURE_PYTHON"):
        environment.pop(name, None)
    if pure:
        environment["STREAMING_JSON_PURE_PYTHON"] = "1"
    command = [sys.executable, "-m", "pytest", "-c", str(copy / "pytest.ini"), "--rootdir", str(copy), *TEST_FILES]
    done = subprocess.run(command, cwd=copy, env=environment, capture_output=True, text=True, check=False)
    if not path.exists():
        raise RuntimeError(f"LangChain's tests did not run:\n{done.stdout}\n{done.stderr}")
    run = json.loads(path.read_text(encoding="utf-8"))
    return Run(run["outcomes"], frozenset(run["exercised"]), run["bound"], run["backend"])
