"""The built documentation in a real browser: at 1,280 px, the width of a laptop's window, no code block scrolls
sideways (their long lines wrap, ``docs/_static/code-blocks.css``). Headless Chromium (Debian's ``chromium`` and
``chromium-driver``, through selenium) opens every page of ``docs/_build/html`` (``make docs``, which ``make test``
runs first; built here where it is missing) and measures each ``pre``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILT = ROOT / "docs" / "_build" / "html"

# Every pre whose content is wider than its box (scrolls sideways), with the start of its first line.
_WIDE_CODE_BLOCKS = """
return Array.from(document.querySelectorAll("pre"))
    .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
    .map((pre) => pre.scrollWidth + " > " + pre.clientWidth + ": " + pre.textContent.split("\\n")[0].slice(0, 60));
"""


def _built_site(tmp_path: Path) -> Path:
    if (BUILT / "index.html").exists():
        return BUILT
    pytest.importorskip("sphinx", reason="the docs' tools are not installed (make docs installs them)")
    site = tmp_path / "html"
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(ROOT / "docs"), str(site)], check=True, timeout=900
    )
    return site


@pytest.mark.slow  # a browser on every page of the site
def test_no_code_block_scrolls_sideways_at_1280_px(tmp_path: Path) -> None:
    from bench import chromium

    if not chromium.installed():
        if os.environ.get("CI"):
            pytest.fail("CI installs chromium and chromium-driver (.ci/run): they are missing")
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        )
    pytest.importorskip("selenium.webdriver", reason="selenium drives the browser (the test extra has it)")
    site = _built_site(tmp_path)
    pages = sorted(page for page in site.rglob("*.html") if not page.relative_to(site).parts[0].startswith("_"))
    browser = chromium.headless_chromium(tmp_path / "profile", window="1280,900")
    try:
        assert browser.execute_script("return window.innerWidth") == 1280
        wide: dict[str, list[str]] = {}
        blocks = 0
        for page in pages:
            browser.get(page.as_uri())
            blocks += browser.execute_script('return document.querySelectorAll("pre").length')
            found = browser.execute_script(_WIDE_CODE_BLOCKS)
            if found:
                wide[str(page.relative_to(site))] = found
    finally:
        browser.quit()
    assert blocks > 100  # the pages were read: the site has a few hundred code blocks
    assert not wide, wide
