"""The servers' pages' examples, run where vLLM and SGLang are installed (``make test`` skips them: the modules they
import are not there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs_examples import ROOT, run_page


@pytest.mark.parametrize("page", ["vllm.md", "sglang.md"])
def test_the_servers_pages_examples_run(page: str) -> None:
    run_page(Path(ROOT) / "docs" / "servers" / page)
