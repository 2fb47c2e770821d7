"""Drop-in means LangChain's own tests pass: the tests of the parsers we replace, from the sdist of the langchain-core
release installed here (fetched with ``pip download`` through pip's configured index, kept in pytest's cache), run
against LangChain's parsers and against ours on both backends, with LangChain's names rebound to ours
(``tests/langchain_sdist.py``). Every test that passes on LangChain's passes on ours, but those in
``NOT_HONOURED`` (none today), and the table in ``docs/frameworks/langchain.md`` holds the counts of this run."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from .langchain_sdist import TEST_FILES, Run, copy_tests, fetch_sdist, installed_version, run_tests

pytest.importorskip("langchain_core")

# One worker runs LangChain's tests (the module's fixture), beside the framework tests' worker rather than after them.
pytestmark = [pytest.mark.xdist_group("langchain-own-tests"), pytest.mark.slow]

DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "frameworks" / "langchain.md"

# LangChain's tests that pass on its parsers and cannot on ours, by node id, with why (the docs list them too).
NOT_HONOURED: dict[str, str] = {}

OURS = "streaming_json.integrations._langchain_parsers"


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest) -> dict[str, Run]:
    """LangChain's tests run three times: on LangChain's parsers, on ours, and on ours with the pure backend."""
    release = installed_version()
    sdist = fetch_sdist(request.config.cache.mkdir("langchain-core-sdist"), release)
    with tempfile.TemporaryDirectory() as directory:
        copy = copy_tests(sdist, Path(directory))
        return {
            "theirs": run_tests(copy, ours=False),
            "ours": run_tests(copy, ours=True),
            "ours, pure": run_tests(copy, ours=True, pure=True),
        }


def test_the_runs_are_what_they_say(runs: dict[str, Run]) -> None:
    theirs = runs["theirs"]
    assert theirs.tests() > 100 and OURS not in theirs.bound.values() and not theirs.exercised
    for name in ("ours", "ours, pure"):
        ours = runs[name]
        assert set(ours.outcomes) == set(theirs.outcomes)  # the same tests collected
        assert set(ours.bound.values()) == {OURS}, ours.bound  # every name rebound
        assert len(ours.exercised) > 50  # and the tests of the parsers ran ours
    assert (runs["ours"].backend, runs["ours, pure"].backend) in (("cython", "python"), ("python", "python"))


@pytest.mark.parametrize("name", ["ours", "ours, pure"])
def test_every_test_that_passes_on_langchains_parsers_passes_on_ours(runs: dict[str, Run], name: str) -> None:
    theirs, ours = runs["theirs"], runs[name]
    failing = {
        node for node, outcome in theirs.outcomes.items() if outcome == "passed" and ours.outcomes[node] != "passed"
    }
    assert failing == set(NOT_HONOURED)
    assert not {node for node in NOT_HONOURED if theirs.outcomes.get(node) != "passed"}  # none is stale


# A row of the table: | `test_json.py` | 43 | 43 | 43 | 6 |, and the last: | all | 110 | ...
_ROW = re.compile(
    r"^\| `?(?P<file>[\w.]+)`? \| (?P<tests>\d+) \| (?P<theirs>\d+) \| (?P<ours>\d+) \| (?P<used>\d+) \|$"
)
_RELEASE = re.compile(r"langchain-core (\d[\w.]*)'s own tests")


def test_the_docs_table_holds_these_counts(runs: dict[str, Run]) -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    documented = _RELEASE.search(page)
    assert documented is not None, "the LangChain page names the release its table counts"
    release = installed_version()
    if documented.group(1) != release:
        pytest.skip(f"the table counts langchain-core {documented.group(1)}'s tests; {release} is installed")
    rows = {match["file"]: match.groupdict() for match in map(_ROW.match, page.splitlines()) if match}
    theirs, ours = runs["theirs"], runs["ours"]
    for file in TEST_FILES:
        name = file.rsplit("/", 1)[-1]
        assert rows.get(name) == {
            "file": name,
            "tests": str(theirs.tests(file)),
            "theirs": str(theirs.count("passed", file)),
            "ours": str(ours.count("passed", file)),
            "used": str(sum(node.startswith(file + "::") for node in ours.exercised)),
        }, name
    assert rows.get("all") == {
        "file": "all",
        "tests": str(theirs.tests()),
        "theirs": str(theirs.count("passed")),
        "ours": str(ours.count("passed")),
        "used": str(len(ours.exercised)),
    }
