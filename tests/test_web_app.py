"""The example app (``examples/web_app.py``) for real: uvicorn on 127.0.0.1, read by an HTTP client and by headless
Chromium (Debian's ``chromium`` and ``chromium-driver``, through selenium), which must show the calls filling in,
piece by piece, and end with their final values; a screenshot is saved (``STREAMING_JSON_SCREENSHOT``: where the docs'
copy goes, ``make screenshot``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the example app needs Starlette (the test extra has it)")
pytest.importorskip("uvicorn", reason="the example app needs uvicorn (the test extra has it)")
pytest.importorskip("openai", reason="the example app reads its recording with the openai client")

ROOT = Path(__file__).resolve().parent.parent


def _example_app() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("web_app", ROOT / "examples" / "web_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


web_app = _example_app()


def expected_calls() -> list[tuple[str, str, Any]]:
    """(id, name, arguments) of each call in the recording, from its chunks."""
    calls: dict[int, list[Any]] = {}
    for event in web_app.RECORDING.read_text(encoding="utf-8").split("\n\n"):
        data = event.removeprefix("data: ")
        if not data or data == "[DONE]":
            continue
        for tool_call in json.loads(data)["choices"][0]["delta"].get("tool_calls") or []:
            call = calls.setdefault(tool_call["index"], [None, None, ""])
            call[0] = tool_call.get("id") or call[0]
            call[1] = tool_call["function"].get("name") or call[1]
            call[2] += tool_call["function"]["arguments"]
    return [(call_id, name, json.loads(text)) for call_id, name, text in calls.values()]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The app on 127.0.0.1 (a free port), served by uvicorn in a thread: its base URL."""
    import uvicorn

    config = uvicorn.Config(web_app.create_app(), log_level="warning", lifespan="off")
    served = uvicorn.Server(config)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not served.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    served.should_exit = True
    thread.join(10)


def test_the_endpoint_streams_each_calls_operations_to_a_real_client(server: str) -> None:
    import httpx

    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    kinds = []
    from streaming_json.patches import apply_patch

    with httpx.stream("GET", f"{server}/write?delay=0&flush=0", timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = None
        for line in response.iter_lines():
            if not line:
                kind = None
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
                kind = kind or "ops"  # the operations are unnamed events
                kinds.append(kind)
                if kind == "start":
                    names[data["id"]] = data["name"]
                elif kind == "ops":
                    values[data["id"]] = apply_patch(values.get(data["id"]), data["ops"])
                elif kind == "end":
                    assert "error" not in data and "value" not in data  # the operations built the value already
    assert [(call_id, names[call_id], values[call_id]) for call_id in names] == expected_calls()
    assert kinds[-1] == "done" and kinds.count("ops") > 500  # each piece that changed a value, sent at once


def _browser(tmp_path: Path) -> Any:
    from bench import chromium

    if not chromium.installed():
        if os.environ.get("CI"):
            pytest.fail("CI installs chromium and chromium-driver (.ci/run): they are missing")
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        )
    pytest.importorskip("selenium.webdriver", reason="selenium drives the browser (the test extra has it)")
    return chromium.headless_chromium(tmp_path / "profile")


def test_a_real_browser_shows_the_calls_filling_in_and_ends_with_their_values(server: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser = _browser(tmp_path)
    try:
        browser.get(f"{server}/?delay=0.01")
        (write_id, _, write_arguments), (records_id, _, records_arguments) = expected_calls()
        content_length = len(write_arguments["content"])
        # Slow enough for the records to be seen one by one (the page records what it showed after each batch).
        deadline = time.monotonic() + 25
        shot_midway = False
        while not browser.execute_script("return window.__done"):
            assert time.monotonic() < deadline, "the page did not finish"
            if not shot_midway:
                rows = browser.execute_script(
                    "const s = window.__states.filter((x) => x[0] === arguments[0]);"
                    "return s.length ? s[s.length - 1][3] : 0;",
                    records_id,
                )
                if 2 <= rows <= len(records_arguments["tests"]) - 2:
                    browser.save_screenshot(str(tmp_path / "midway.png"))
                    shot_midway = True
            time.sleep(0.02)
        states = browser.execute_script("return window.__states")
        write_states = [state for state in states if state[0] == write_id]
        lengths = [state[2] for state in write_states]
        # The content grew in many steps, each longer than the one before; the path showed before the content.
        assert len(lengths) > 50 and lengths == sorted(lengths) and 0 < lengths[len(lengths) // 2] < content_length
        assert [state[1] for state in write_states if state[1]][0] == 1 and lengths[-1] == content_length
        rows = [state[3] for state in states if state[0] == records_id]
        assert set(range(1, len(records_arguments["tests"]) + 1)) <= set(rows)  # the records, one by one
        assert browser.execute_script("return window.__values") == {
            write_id: write_arguments,
            records_id: records_arguments,
        }
        card = browser.find_element(By.CSS_SELECTOR, f'[data-call="{write_id}"]')
        assert (
            card.find_element(By.CSS_SELECTOR, '[data-key="content"] pre').get_attribute("textContent")
            == (write_arguments["content"])
        )
        assert card.find_element(By.CSS_SELECTOR, '[data-key="path"] pre').text == write_arguments["path"]
        table = browser.find_element(By.CSS_SELECTOR, f'[data-call="{records_id}"] table')
        assert len(table.find_elements(By.CSS_SELECTOR, "tr[data-row]")) == len(records_arguments["tests"])
        assert [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".state")] == ["done", "done"]
        browser.save_screenshot(str(tmp_path / "done.png"))
    finally:
        browser.quit()
    assert shot_midway, "no screenshot while the records were coming"
    saved = os.environ.get("STREAMING_JSON_SCREENSHOT")
    if saved:
        shutil.copy(tmp_path / "midway.png", saved)
