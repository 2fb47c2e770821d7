"""The test harness itself: a run that requires the compiled core stops before any test when it is missing, and
says how to build it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_missing_compiled_core_stops_the_run_and_says_how_to_build_it() -> None:
    # STREAMING_JSON_PURE_PYTHON=1 keeps the package from importing the core, as a failed build would.
    env = dict(os.environ, STREAMING_JSON_PURE_PYTHON="1", STREAMING_JSON_REQUIRE_COMPILED="1")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_readme.py"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]  # pytest's usage error
    assert "compiled core is required" in result.stderr and "make clean && make test" in result.stderr
    assert "passed" not in result.stdout
