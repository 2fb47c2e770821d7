"""What a stream costs in memory, on both backends: a long open string read a character a piece with a snapshot after
each peaks at most 3x the text, and one idle parser mid-string holds at most 1 KB (issue 42). Measured as
``python -m bench memory`` measures them (``bench/suites/memory.py``: tracemalloc in this process; the definitions
are there), at the suite's full size.
"""

from __future__ import annotations

from types import ModuleType

from bench.suites import memory

from .backends import cpython_only, is_compiled

pytestmark = cpython_only("the figures are tracemalloc's, which PyPy lacks")

# The pure backend reads 1 MiB a character a piece under tracemalloc in about a minute: it is measured at 64 KiB (its
# peak is the text joined once more, whatever the length: 2.0x at 64 KiB as at 1 MiB).
PURE_CHARS = 1 << 16


def test_a_long_string_in_one_character_pieces_peaks_at_most_three_times_the_text(backend: ModuleType) -> None:
    peak = memory.parser_peak(backend, memory.PEAK_TEXT_CHARS if is_compiled(backend) else PURE_CHARS)
    assert peak <= memory.PEAK_LIMIT, f"peak {peak:.2f}x the text"


def test_the_peak_holds_at_every_stage_of_the_strings_growth(backend: ModuleType) -> None:
    """Where the string's strs were just made or resized (their room at its largest) as much as between: lengths
    that fall on and between the growth steps, from 10,000 characters (below that the compiled core keeps a short
    string in its own buffer and strs with room to double: up to 4.4x of a few KB)."""
    for chars in (10_000, 40_000, 70_000) + ((100_000, 300_000) if is_compiled(backend) else ()):
        peak = memory.parser_peak(backend, chars)
        assert peak <= memory.PEAK_LIMIT, f"{chars:,} characters: peak {peak:.2f}x the text"


def test_an_idle_parser_mid_string_holds_at_most_one_kilobyte(backend: ModuleType) -> None:
    idle, after_snapshot = memory.idle_parser(backend)
    assert idle <= memory.IDLE_LIMIT, f"{idle:,} bytes"
    # After a snapshot it keeps that snapshot (and, compiled, its records of what it showed): more, but bounded.
    assert idle < after_snapshot <= (3 if is_compiled(backend) else 2) * memory.IDLE_LIMIT, f"{after_snapshot:,} bytes"


def test_the_measure_counts_what_a_parser_keeps(backend: ModuleType) -> None:
    """The idle figure is not blind: a parser that keeps a 10,000-character open string holds at least that."""

    def make() -> object:
        parser = backend.StreamingJsonParser()
        parser.append('{"a": "' + "x" * 10_000)
        return parser

    idle, _ = memory.idle_bytes(make)
    assert idle >= 10_000
