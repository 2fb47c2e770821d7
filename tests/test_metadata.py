"""The package's version is the one CHANGELOG is writing: its newest heading, released or not."""

from __future__ import annotations

import re
from pathlib import Path

import streaming_json

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_changelogs_newest() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, flags=re.MULTILINE)
    assert newest is not None, "CHANGELOG.md has no version heading"
    assert streaming_json.__version__ == newest.group(1)
