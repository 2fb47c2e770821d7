"""The README's examples run as written, and they and the package pass ``mypy --strict``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
# Names the SDK examples take from the reader's program.
PRELUDE = """\
from typing import Any
client: Any
openai_client: Any
MODEL: Any
TOOLS: Any
MESSAGES: Any
def show(*args: Any) -> None: ...
"""


def _self_contained(example: str) -> bool:
    return "client" not in example


@pytest.mark.parametrize("example", [e for e in EXAMPLES if _self_contained(e)])
def test_readme_example_runs(example: str) -> None:
    if "streaming_json.pydantic" in example:  # an optional extra: absent where only the core is installed
        pytest.importorskip("pydantic", reason="the typed-streaming example needs pydantic")
    exec(compile(example, "README.md", "exec"), {})


@pytest.mark.slow
def test_package_and_readme_examples_pass_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    files = []
    for number, example in enumerate(EXAMPLES):
        path = tmp_path / f"readme_example_{number}.py"
        path.write_text(PRELUDE + example, encoding="utf-8")
        files.append(str(path))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--ignore-missing-imports",
            "--no-incremental",
            str(ROOT / "streaming_json"),
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:]


def test_readme_gives_the_two_commands() -> None:
    assert "make run" in README and "make test" in README
