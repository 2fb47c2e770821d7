"""Our drop-in ``ResponseParser`` held to transformers' reader of a ``response_template`` (or to vLLM's copy of it):
each output that theirs reads with a template we compile is read again by ours, whole, in pieces of every size from
1 to 31 and in three random splits, and must give the same message; a template we refuse is kept with the feature
that stops it.

One place for both runs of transformers' fixtures: ``tests/test_response_template_fixtures.py`` (their
``parse_response`` calls) and the servers tier's run of vLLM's ``tests/parser/test_response_template.py`` (the
``ResponseParser`` uses of vLLM's ``hf`` parser; ``vllm_own_tests_plugin.py`` loads this file by path in a child
pytest where vLLM's ``tests`` package is the one on ``sys.path``, so it imports nothing of ``tests``).
"""

from __future__ import annotations

import random
import re
from typing import Any

from streaming_json.model_output import ResponseParser, compile_response_template


def splits(text: str, seed: int) -> list[list[str]]:
    """The text whole, in pieces of every size from 1 to 31, and in three random splits."""
    found = [[text]] + [[text[at : at + size] for at in range(0, len(text), size)] for size in range(1, 32)]
    rng = random.Random(seed)
    for _ in range(3):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 12)))) if len(text) > 1 else []
        found.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])])
    return found


def template_name(template: dict[str, Any]) -> str:
    """A short name for a template that has none: its fields and its start anchor."""
    return repr(sorted(template.get("fields", {})))[:60] + repr(template.get("start_anchor"))[:40]


def refused_feature(error: ValueError) -> str:
    """The field and the feature a refusal names (``tool_calls: 'transform_each'``), else its whole message."""
    match = re.fullmatch(r"response_template field '(.*?)': (.*) cannot be streamed", str(error))
    return f"{match[1]}: {match[2]}" if match else str(error)


class Reads:
    """The outputs read again by ours (``compared``), the templates refused (name: why), and the mismatches
    (the output, how many pieces, our message, theirs)."""

    def __init__(self, parser_class: Any = None) -> None:
        self.parser_class = parser_class
        self.compared: list[str] = []
        self.refused: dict[str, str] = {}
        self.mismatches: list[tuple[str, int, Any, Any]] = []

    def refuses(self, template: Any, name: str) -> bool:
        """Whether we refuse ``template`` (kept under ``name`` with the field and feature our refusal names)."""
        try:
            compile_response_template(template)
        except ValueError as error:
            self.refused[name] = refused_feature(error)
            return True
        return False

    def check(self, template: Any, text: str, expected: Any, *, prefix: Any, tools: Any, name: str = "") -> None:
        """Read ``text`` (the output theirs read as ``expected``) with ours at every split, where we compile the
        template (else it is kept as refused under ``name``, by default the template's fields and anchor)."""
        if self.refuses(template, name or template_name(template)):
            return
        compiled = compile_response_template(template)
        for pieces in splits(text, len(self.compared)):
            parser = ResponseParser(compiled, prefix=prefix, tools=tools, parser_class=self.parser_class)
            for piece in pieces:
                parser.feed(piece)
            message = parser.finalize()[0]
            if message != expected:
                self.mismatches.append((text, len(pieces), message, expected))
                break
        self.compared.append(text)
