"""vLLM's own tool-parser tests (``tests/tool_parsers/`` of its sdist) against our parsers in place of vLLM's, and
with vLLM's own on the same machine: every test vLLM's parser passes passes with ours, but those listed with why in
``vllm_own_tests.py``; each listed one still fails with ours (a fix makes the list say so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import vllm_own_tests
from .vllm_own_tests import GROUPS

CASES = [(name, files) for group in GROUPS.values() for name, files in group.items()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("vllm-own-tests")
    found: dict[str, dict[str, dict[str, Any]]] = {"theirs": {}, "ours": {}}
    for number, (tests, group) in enumerate(GROUPS.items()):
        files = sorted({file for files in group.values() for file in files})
        for parsers in found:
            found[parsers].update(vllm_own_tests.run(parsers, files, Path(folder) / f"{parsers}-{number}.json", tests))
    print()
    print(vllm_own_tests.table(found["theirs"], found["ours"]))
    return found


@pytest.mark.parametrize(("format_name", "files"), CASES, ids=[f"{name}-{files[0]}" for name, files in CASES])
def test_vllm_own_tests_pass_with_ours_in_place(
    runs: dict[str, dict[str, dict[str, Any]]], format_name: str, files: list[str]
) -> None:
    vllm_own_tests.check_ours_in_place(runs["theirs"], runs["ours"], files, format_name)
