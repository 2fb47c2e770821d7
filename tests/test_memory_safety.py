"""Interpreter safety: no leaked references or buffers, MemoryError instead of a crash, no crash from concurrent
use, and a parser that stays usable after an interrupted append()."""

from __future__ import annotations

import gc
import json
import signal
import subprocess
import sys
import textwrap
import threading
import weakref
from types import ModuleType

import pytest

from streaming_json import MISSING

from .backends import cpython_only, is_compiled

DOCUMENTS = [
    '{"path": "a.py", "content": "print(\\"hi\\")\\n", "n": [1, 2.5, true, null], "k\\u00e9": {"deep": [[]]}}',
    '[1, "two", {"three": 3}, [4, [5]], "\\ud83d\\ude00", -6e2]',
    '{"unterminated": "text that never ends',
    '{"bad": [tru, 01, "x\\d", NaN}}, trailing',
]


def _parse_in_pieces(backend: ModuleType, text: str, as_bytes: bool) -> object:
    parser = backend.StreamingJsonParser()
    data: bytes | str = text.encode() if as_bytes else text
    for start in range(0, len(data), 7):
        parser.append(data[start : start + 7])
        parser.snapshot()
    return parser.snapshot()


@pytest.mark.slow  # 200,000 documents
@cpython_only("sys.getallocatedblocks counts CPython's allocator blocks; PyPy's moving GC has no such count")
def test_memory_stops_growing_over_200000_documents(backend: ModuleType) -> None:
    # A leaked reference or buffer per document shows as blocks that are never freed.
    for number in range(2_000):
        _parse_in_pieces(backend, DOCUMENTS[number % 4], as_bytes=bool(number % 2))
    gc.collect()
    before = sys.getallocatedblocks()
    count = 200_000 if is_compiled(backend) else 20_000  # the pure backend: fewer, same check
    for number in range(count):
        _parse_in_pieces(backend, DOCUMENTS[number % 4], as_bytes=bool(number % 2))
    gc.collect()
    assert sys.getallocatedblocks() - before < 500


@cpython_only("_testcapi.set_nomemory fails CPython's allocators on purpose")
def test_allocation_failure_raises_memory_error_not_a_crash(backend: ModuleType) -> None:
    pytest.importorskip("_testcapi", reason="this CPython was built without its test C API")
    script = textwrap.dedent(
        f"""
        import _testcapi, importlib
        backend = importlib.import_module({backend.__name__!r})
        parser = backend.StreamingJsonParser()
        parser.append('{{"a": [1, 2, {{"b": "')
        failures = 0
        for start in range(0, 60):
            _testcapi.set_nomemory(start, 0)
            try:
                parser.append('x' * 5000 + '", "c": [[[[' + '1, ' * 100)
                parser.snapshot()
            except MemoryError:
                failures += 1
            finally:
                _testcapi.remove_mem_hooks()
        parser.append(']]]]}}]}}')
        parser.snapshot()
        print("failures", failures)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert int(result.stdout.split()[1]) > 0  # allocations did fail, and each failure was a MemoryError


def test_one_parser_used_from_several_threads_does_not_crash(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser()
    parser.append("[")
    stop = threading.Event()
    errors: list[BaseException] = []

    def hammer() -> None:
        while not stop.is_set():
            try:
                parser.append('{"k": "' + "v" * 50 + '"}, [1, 2, 3], ')
                parser.snapshot()
            except Exception as error:  # results may be meaningless here; the interpreter must not crash
                errors.append(error)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for thread in threads:
            thread.start()
        stop.wait(1.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(switch_interval)
    snapshot = parser.snapshot()  # still answers after the race
    if is_compiled(backend):
        # The compiled core refuses re-entry, so each append ran whole: the value is still the open array.
        assert isinstance(snapshot, list)
        assert all(isinstance(error, RuntimeError) for error in errors)


def test_keyboard_interrupt_during_a_long_append_leaves_the_parser_usable(backend: ModuleType) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    parser = backend.StreamingJsonParser()
    parser.append('{"log": [')
    # Long enough that the timer fires inside append() on either backend: a value a token, which costs Python objects
    # even in the compiled core (a long string would not: the pure backend finds its end in one C call). Whatever
    # token reading stopped in, the text that follows ends it.
    huge = "1," * 5_000_000
    previous = signal.signal(signal.SIGALRM, interrupt)
    # Without the cyclic GC for the moment: a gc callback (hypothesis installs one) is Python code that may run in the
    # middle of the compiled core's append and take the interrupt there, where it can only be reported, not raised.
    gc.disable()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(KeyboardInterrupt):
            parser.append(huge)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        gc.enable()
    parser.append('], "after": [1, 2]}')
    value = parser.snapshot()
    assert value is not MISSING
    assert value["after"] == [1, 2]
    assert 0 < len(value["log"]) < 5_000_000 and set(value["log"]) == {1}  # what was read before the interrupt
    assert json.dumps(value)


class _Marker:
    """A weak-referenceable object to put in a cycle, to see whether the cycle is collected."""

    link: object = None


@pytest.mark.parametrize(
    "text,where",
    [
        ('{"a": {"b": [1, ', ("a", "b")),  # an open path: snapshot copies
        ("[[1, [2]], [3, ", (0,)),  # a closed container, shared by snapshots
        ('{"a": [{"b": {"c": "x"}}, ', ("a", 0, "b")),
        ("[[[[1]]]]", (0, 0)),  # a closed document
    ],
    ids=["open path", "closed child", "closed object in an open array", "closed root"],
)
def test_a_snapshot_mutated_into_a_cycle_is_collected(backend: ModuleType, text: str, where: tuple) -> None:
    """Snapshots are the user's: one mutated into a reference cycle must still be collected (the compiled core keeps
    its open containers away from the GC, which must never leak a container the user can reach)."""
    parser = backend.StreamingJsonParser(done_events=True)
    for char in text:
        parser.append(char)
    snapshot = parser.snapshot()
    inner = snapshot
    for key in where:
        inner = inner[key]
    marker = _Marker()
    marker.link = snapshot  # marker -> snapshot -> ... -> inner -> marker
    if isinstance(inner, dict):
        inner["marker"] = marker
    else:
        inner.append(marker)
    seen = weakref.ref(marker)
    del marker, snapshot, inner
    parser.append(" ")  # the parser lets go of the snapshot once it makes a new one
    parser.append('"new"')
    parser.snapshot(fresh=True)
    del parser
    gc.collect()
    assert seen() is None, "a snapshot in a reference cycle was not collected"


def test_repeated_and_colliding_keys_read_as_written(backend: ModuleType) -> None:
    """The compiled core shares the str of a short key between members and parsers (a cache indexed by a hash of
    the text): keys that fall on the same entry, Latin-1 ones, and the same key in many parsers read as written."""
    keys = [f"k{index}" for index in range(3000)] + ["é", "ÿÿ", "", "a" * 32, "a" * 33, "ascii", "é" * 32]
    document = {key: index for index, key in enumerate(keys)}
    text = json.dumps(document, ensure_ascii=False)
    for _ in range(2):  # the second parser finds the first one's keys in the cache
        parser = backend.StreamingJsonParser(changes=False)
        for start in range(0, len(text), 7):
            parser.append(text[start : start + 7])
        assert list(parser.snapshot(fresh=True).items()) == list(document.items())
