"""The suites: each a module here that holds only its contenders, workloads and targets (``bench/harness.py`` does
the rest), registered below so that ``python -m bench --list`` names it without importing its peers.

A suite module gives:

- its module docstring: what it measures and how (``python -m bench SUITE --help`` prints its first paragraph);
- ``PACKAGES``: the distributions whose versions the environment line and ``--json`` report;
- ``MARKDOWN``: whether its tables are markdown by default (``--markdown`` / ``--text`` choose);
- ``add_arguments(parser)``: its own options (``--quick`` and ``--json`` are everyone's);
- ``run(session) -> int``: measures, prints, fills ``session.raw`` for ``--json``; 0, or 1 when ours was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Suite:
    name: str
    summary: str
    needs: str  # what it needs installed: where `make bench` runs it, or how to run it by hand

    @property
    def module(self) -> str:
        return f"bench.suites.{self.name}"


SUITES = {
    suite.name: suite
    for suite in (
        Suite("peers", "every partial-JSON peer on the LLM workloads, side by side", "the bench extra"),
        Suite("sdk", "the SDKs' own stream helpers against our adapters, on SDK event objects", "the test extra"),
        Suite("typed", "ModelStream against instructor's Partial and pydantic's partial validation", "the bench extra"),
        Suite("features", "done events, iter_items, JSON Lines and prose against their floors", "the bench extra"),
        Suite("pypy", "the pure backend on PyPy against the compiled core on CPython, cold and warm", "pypy3"),
        Suite("instructions", "our adapters' instructions per event over the parser, callgrind", "valgrind, gcc"),
        Suite(
            "core",
            "the compiled core's instructions a piece, every workload and the event path, callgrind",
            "valgrind, gcc",
        ),
        Suite(
            "producer",
            "ModelOutputStream against vLLM's and SGLang's own tool parsers, and their bugs",
            "make bench-producer",
        ),
        Suite(
            "producer_templates",
            "a response_template: our stream and drop-in against transformers' ResponseParser and vLLM's hf parser",
            "the test extra",
        ),
        Suite(
            "serving",
            "our vLLM parsers and SGLang detectors in the servers' loops, over the DeltaMessage floor",
            "make bench-producer",
        ),
        Suite("snapshot_cost", "the copy-credit rule's weights, and a deep open path's cost", "the compiled core"),
        Suite("memory", "peak memory of a long string read a character a piece; an idle parser", "CPython"),
        Suite("frameworks", "LangChain's and pydantic-ai's own streaming against our adapters", "the test extra"),
        Suite(
            "clients", "end to end through the SDKs' clients: their helpers, create(stream=True), raw", "the test extra"
        ),
        Suite("reference", "the compiled core against the TypeScript reference on V8, and a baseline", "node"),
        Suite("patches", "JSON Patch ops on the wire against snapshots, jsonpatch and jsoncurrent", "the bench extra"),
    )
}
