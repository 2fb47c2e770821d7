"""Model outputs for the servers' tests: the 845 real calls written as each format writes them, with prose around
and a reasoning block where asked, the tools a request gives with them (their schemas typing the values of the
formats that write arguments as text), and the ways a server hands them to its parser (token deltas from a tokenizer
made here, one character a delta, wide deltas as under speculative decoding, the whole output in one)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tests.model_outputs import (
    ALL_FORMAT_NAMES,
    FORMAT_NAMES,
    NEW_FORMAT_NAMES,
    PROSE_AFTER,
    PROSE_BEFORE,
    REAL_CALLS,
    tools_for,
    typed_alike,
    writable,
    write_output,
)

from .local_tokenizer import make_tokenizer

BEFORE = ["Let me look.", "I'll check <b>that</b> [first]: ", "", "Sure! 😀 Voilà — résumé:\n"]
AFTER = ["", "\n\nThat should do it.", " Done.", ""]
CUTS = ("tokens", "characters", "wide", "whole")


@dataclass(frozen=True)
class Output:
    format_name: str
    text: str
    think: str  # the reasoning block's text ("" for none)
    content: str  # what the model wrote outside calls and reasoning, markers removed
    calls: tuple[tuple[str, str, str], ...]  # (own id or "", name, argument text as streamed) of each call, in order
    tools: tuple[dict[str, Any], ...] = ()  # the request's tools (OpenAI's definitions); () for any_object_tools()


@lru_cache(maxsize=1)
def tokenizer() -> Any:
    """A tokenizer whose vocabulary was learnt from the corpus (its words are tokens), every marker one token."""
    texts = [arguments for _, arguments in REAL_CALLS[::4]] + BEFORE + AFTER
    return make_tokenizer(texts, vocab_size=4000)


def tool_names() -> list[str]:
    return sorted({name for name, _ in REAL_CALLS})


def any_object_tools() -> tuple[dict[str, Any], ...]:
    """Every tool of the corpus, its parameters any object (what the JSON formats' tests ask with)."""
    return tuple(
        {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}} for name in tool_names()
    )


def outputs(format_name: str, every: int = 1, think: bool = False, longest: int = 10**9) -> list[Output]:
    """The real calls one to three to an output, in this format, with prose around where the format has it. The
    formats that write arguments as text take the calls they can write (no value holding one of their markers),
    typed by schemas inferred from the values (``tools_for``): their argument text is the JSON of the typed values."""
    rng = random.Random(format_name)
    found = []
    calls = [call for call in REAL_CALLS[::every] if len(call[1]) <= longest]
    typed = format_name in NEW_FORMAT_NAMES
    if typed:
        calls = [call for call in calls if writable(format_name, call[1])]
    position = 0
    while position < len(calls):
        group = calls[position : position + rng.randint(1, 3)]
        position += len(group)
        if typed:
            group = typed_alike(group)
        number = len(found)
        before = BEFORE[number % 4] if PROSE_BEFORE[format_name] else ""
        after = AFTER[(number // 4) % 4] if PROSE_AFTER[format_name] else ""
        thought = f"The user wants {group[0][0]}; step {number}." if think else ""
        text, events = write_output(format_name, group, before=before, after=after, think=thought)
        ids = [event.id if format_name == "kimi_k2" else "" for event in events if event.kind == "start"]
        streamed = [event.text for event in events if event.kind == "arguments"]
        found.append(
            Output(
                format_name,
                text,
                thought,
                before + after,
                tuple((own, name, arguments) for own, (name, _), arguments in zip(ids, group, streamed)),
                tuple(tools_for(group)) if typed else any_object_tools(),
            )
        )
    return found


def deltas(text: str, cut: str, seed: int) -> list[tuple[str, list[int]]]:
    """The output as a server's deltas: (text, token ids) each. ``tokens``: one token a delta, decoded as a
    detokenizer does (text that ends inside a character waits for the rest); ``characters``: one character a delta;
    ``wide``: 8 to 40 tokens a delta; ``whole``: one delta."""
    if cut == "characters":
        return [(char, [ord(char)]) for char in text]
    ids = tokenizer().encode(text, add_special_tokens=False)
    pieces: list[tuple[str, list[int]]] = []
    pending: list[int] = []
    for token_id in ids:
        pending.append(token_id)
        whole = tokenizer().decode(pending, skip_special_tokens=False)
        if "\ufffd" in whole:
            continue  # a character split across tokens: the detokenizer waits for its end
        pieces.append((whole, pending))
        pending = []
    if pending:
        pieces.append((tokenizer().decode(pending, skip_special_tokens=False), pending))
    assert "".join(piece for piece, _ in pieces) == text, "the tokenizer does not give the text back"
    if cut == "tokens":
        return pieces
    rng = random.Random(seed)
    width = (8, 40) if cut == "wide" else (len(pieces), len(pieces))
    grouped, position = [], 0
    while position < len(pieces):
        group = pieces[position : position + rng.randint(*width)]
        grouped.append(("".join(piece for piece, _ in group), [i for _, ids in group for i in ids]))
        position += len(group)
    return grouped


__all__ = [
    "ALL_FORMAT_NAMES",
    "CUTS",
    "FORMAT_NAMES",
    "Output",
    "any_object_tools",
    "deltas",
    "outputs",
    "tokenizer",
    "tool_names",
]
