"""vLLM's own tool-parser tests (``tests/tool_parsers/`` of its sdist) against our parsers in place of vLLM's, and
with vLLM's own on the same machine: every test vLLM's parser passes passes with ours, but those listed with why in
``vllm_own_tests.py``; each listed one still fails with ours (a fix makes the list say so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import vllm_own_tests
from .vllm_own_tests import GROUPS, LISTED, listed_as

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
    theirs, ours = runs["theirs"], runs["ours"]
    mine = {test: entry for test, entry in ours.items() if test.split("::")[0] in files and entry["ours"]}
    assert len(mine) >= 4, f"our {format_name} parser ran in only {len(mine)} of vLLM's tests: was it put in place?"
    for test in mine:
        assert test in theirs, f"{test} ran with ours only"
    unexpected = {
        test: entry.get("message", "")[-600:]
        for test, entry in mine.items()
        if entry["outcome"] in ("failed", "error") and listed_as(test) is None and theirs[test]["outcome"] == "passed"
    }
    assert not unexpected, "\n\n".join(f"{test}:\n{message}" for test, message in unexpected.items())
    stale = [test for test in mine if listed_as(test) is not None and mine[test]["outcome"] not in ("failed", "error")]
    assert not stale, f"listed as failing with ours, but they pass now: {stale}"
    # Each listing names tests that exist (a misspelt one would list nothing, and hide nothing either).
    here = {listed_as(test) for test in ours if test.split("::")[0] in files}
    unknown = [key for key in LISTED if key.split("::")[0] in files and key not in here]
    assert not unknown, f"listed, but vLLM's files have no such test: {unknown}"
    # vLLM's parsers pass their own tests here (the tokenizer made here serves them): the run is a fair one.
    assert all(theirs[test]["outcome"] in ("passed", "skipped", "xfailed") for test in mine)
