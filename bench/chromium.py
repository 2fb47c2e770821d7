"""Headless Chromium for the bench and the tests: Debian's ``chromium`` driven through its ``chromium-driver`` by
selenium (one place for the browser's flags), and a static server on 127.0.0.1 for the pages it opens (an ES module
loads over HTTP only, not from a ``file:`` URL)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

# Each page is cross-origin isolated (these two headers): Chromium then times with performance.now() to 5 us, where
# it rounds to 100 us otherwise.
_ISOLATED = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
_TYPES = {".html": "text/html; charset=utf-8", ".mjs": "text/javascript", ".js": "text/javascript"}


def installed() -> bool:
    """Whether the browser and its driver are there (``apt-get install chromium chromium-driver``)."""
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


def headless_chromium(profile: Path, *, window: str = "1100,900") -> Any:
    """A selenium ``webdriver.Chrome`` on Debian's headless Chromium, its profile in ``profile`` (a fresh folder);
    ``quit()`` it when done."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={window}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)


@contextlib.contextmanager
def serve(files: Mapping[str, bytes]) -> Iterator[str]:
    """Serve ``files`` (URL path -> body; the type from the name's suffix, a folder's (``/``) HTML, JSON otherwise) on
    127.0.0.1, cross-origin isolated; yield the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server calls
            body = files.get(self.path.split("?")[0])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            path = self.path.split("?")[0]
            suffix = ".html" if path.endswith("/") else Path(path).suffix
            self.send_header("Content-Type", _TYPES.get(suffix, "application/json"))
            self.send_header("Content-Length", str(len(body)))
            for name, value in _ISOLATED.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
