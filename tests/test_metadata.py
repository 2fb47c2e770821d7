"""The package's version is the one CHANGELOG is writing: its newest heading, released or not."""

from __future__ import annotations

import re
from pathlib import Path

import streaming_json

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_changelogs_newest() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, flags=re.MULTILINE)
    assert newest is not None, "CHANGELOG.md has no version heading"
    assert streaming_json.__version__ == newest.group(1)


def test_the_classifiers_name_the_versions_ci_tests() -> None:
    """The Python versions pyproject.toml claims are the ones `make test-versions` (in .ci/run) tests, and
    requires-python starts at the oldest."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    claimed = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)
    tested = re.search(r"^TEST_VERSIONS \?= (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert tested is not None and claimed == tested.group(1).split(), (claimed, tested)
    assert "make test-versions" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f'requires-python = ">={claimed[0]}"' in pyproject, claimed
