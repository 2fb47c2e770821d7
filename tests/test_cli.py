"""The command line, run as ``python -m streaming_json`` in a subprocess: snapshots, changes, files, slow pipes,
malformed and non-UTF-8 input, the demo, and a reader that goes away. One case that depends on exact piece
boundaries calls the printing function directly."""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Optional

import pytest

import streaming_json
from streaming_json.__main__ import LineWriter, print_snapshots

TIMEOUT = 30
SUMMARY = re.compile(r"streamed [\d,]+ pieces \([\d,]+ characters\) in \d+\.\d s with the (\w+) backend")


def run_cli(*args: str, input: bytes = b"", env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "streaming_json", *args],
        input=input,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
    )


def output_lines(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    return result.stdout.decode("utf-8").splitlines()


class LiveProcess:
    """The CLI reading from a pipe that we feed piece by piece, with its output lines read as they come.

    A context manager: leaving it ends the process and closes every pipe, also when a test fails halfway.
    """

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streaming_json", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        self._reader = threading.Thread(target=self._read_lines, args=(self.process.stdout,), daemon=True)
        self._reader.start()

    def _read_lines(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self.lines.put(line)

    def send(self, piece: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(piece)
        self.process.stdin.flush()

    def next_line(self) -> str:
        return self.lines.get(timeout=TIMEOUT).decode("utf-8").rstrip("\n")

    def close(self) -> int:
        """End the input; return the exit status once every output line is in ``lines``."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        status = self.process.wait(timeout=TIMEOUT)
        self._reader.join(timeout=TIMEOUT)
        return status

    def __enter__(self) -> LiveProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None and self.process.stderr is not None
        with contextlib.suppress(BrokenPipeError):  # the process may be gone already
            self.process.stdin.close()
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # The reader thread sees the end of the output once the process is gone; then its pipe can be closed.
        self._reader.join(timeout=TIMEOUT)
        self.process.stdout.close()
        self.process.stderr.close()

    def remaining_lines(self) -> list[str]:
        lines = []
        while not self.lines.empty():
            lines.append(self.next_line())
        return lines


def test_unterminated_object_prints_its_value_as_the_last_line() -> None:
    assert output_lines(run_cli(input=b'{"a": "b')) == ['{"a":"b"}']


def test_each_line_is_a_snapshot_of_the_text_so_far() -> None:
    with LiveProcess() as process:
        process.send(b'{"items": [1, ')
        assert process.next_line() == '{"items":[1]}'
        process.send(b'{"name": "wid')
        assert process.next_line() == '{"items":[1,{"name":"wid"}]}'
        process.send(b'get"}], "done": tr')
        assert process.next_line() == '{"items":[1,{"name":"widget"}],"done":true}'
        process.send(b"ue}")
        assert process.close() == 0
        assert process.remaining_lines() == []  # the value did not change: no line repeats it


def test_changes_prints_one_json_object_a_line() -> None:
    with LiveProcess("--changes") as process:
        process.send(b'{"a": "b')
        assert json.loads(process.next_line()) == {"kind": "set", "path": [], "value": {}}
        assert json.loads(process.next_line()) == {"kind": "set", "path": ["a"], "value": "b"}
        process.send(b'cd", "n": [7]}')
        assert json.loads(process.next_line()) == {"kind": "append", "path": ["a"], "text": "cd"}
        assert json.loads(process.next_line()) == {"kind": "set", "path": ["n"], "value": []}
        assert json.loads(process.next_line()) == {"kind": "set", "path": ["n", 0], "value": 7}
        assert process.close() == 0


def test_reads_a_file_argument(tmp_path: Path) -> None:
    path = tmp_path / "arguments.json"
    path.write_text('{"path": "src/app.py", "content": "print(1)\\n", "mode": 420}', encoding="utf-8")
    assert output_lines(run_cli(str(path)))[-1] == '{"path":"src/app.py","content":"print(1)\\n","mode":420}'


def test_a_missing_file_is_an_error_without_a_traceback(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "missing.json"))
    assert result.returncode == 1
    assert result.stdout == b""
    assert b"missing.json" in result.stderr and b"Traceback" not in result.stderr


def test_malformed_input_prints_what_it_could_read_and_exits_0() -> None:
    assert output_lines(run_cli(input=b'{"a": [1, 2,, }x]]} trailing'))[-1] == '{"a":[1,2]}'


def test_text_without_a_value_prints_nothing() -> None:
    assert output_lines(run_cli(input=b"  \n")) == []


def test_a_character_split_between_reads_is_read_whole() -> None:
    with LiveProcess() as process:
        process.send(b'{"a": "caf\xc3')  # the first byte of "é"
        assert process.next_line() == '{"a":"caf"}'
        process.send(b'\xa9"}')
        assert process.next_line() == '{"a":"café"}'
        assert process.close() == 0


def test_invalid_utf8_reads_as_replacement_characters() -> None:
    assert output_lines(run_cli(input=b'{"a": "x\xff\xfey"}')) == ['{"a":"x\ufffd\ufffdy"}']


def test_a_character_cut_off_by_the_end_of_input_reads_as_a_replacement_character() -> None:
    assert output_lines(run_cli(input=b'{"a": "caf\xc3'))[-1] == '{"a":"caf\ufffd"}'


def test_lone_surrogate_escapes_stay_escapes() -> None:
    assert output_lines(run_cli(input=b'["\\ud800"]')) == ['["\\ud800"]']


def test_the_last_line_shows_everything_even_when_snapshots_lag() -> None:
    # A long open string read a character at a time: the parser hands out an older snapshot while a fresh copy is not
    # yet paid for (its copy-credit rule), but the last line must still show every character read.
    content = "0123456789" * 2000
    buffer = io.BytesIO()
    print_snapshots(iter('{"content": "' + content), LineWriter(buffer))
    assert json.loads(buffer.getvalue().decode("utf-8").splitlines()[-1]) == {"content": content}


@pytest.mark.parametrize("pure", [False, True], ids=["default backend", "pure backend"])
def test_demo_outside_a_terminal_ends_with_the_summary(pure: bool) -> None:
    # The default case inherits this process's environment, so it runs the backend that this process imported.
    env = {"STREAMING_JSON_PURE_PYTHON": "1"} if pure else {}
    lines = output_lines(run_cli("--demo", "--speed", "1000", env=env))
    summary = SUMMARY.fullmatch(lines[-1])
    assert summary is not None, lines[-1]
    assert summary.group(1) == ("python" if pure else streaming_json.BACKEND)
    assert lines[-2].startswith('write(path: "src/ratelimit/token_bucket.py", content: ')
    assert any("100% of" in line for line in lines)


def test_the_pure_backend_reads_the_same() -> None:
    env = {"STREAMING_JSON_PURE_PYTHON": "1"}
    assert output_lines(run_cli(input=b'{"a": "b', env=env)) == ['{"a":"b"}']
    version = f"streaming-json {streaming_json.__version__} (python backend)"
    assert output_lines(run_cli("--version", env=env)) == [version]


def test_the_version_is_the_installed_distributions() -> None:
    assert importlib.metadata.version("streaming-json") == streaming_json.__version__


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + ",".join(['"xxxxxxxxxxxxxxxx"'] * 200_000) + "]", encoding="utf-8")
    command = [sys.executable, "-m", "streaming_json", str(path)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(2) == b'["'
        process.stdout.close()
        assert process.wait(timeout=TIMEOUT) == 0
        assert process.stderr.read() == b""


def test_bad_options_are_reported_by_argparse() -> None:
    result = run_cli("--demo", "--speed", "0")
    assert result.returncode == 2
    assert b"must be greater than 0" in result.stderr
