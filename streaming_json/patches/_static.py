"""Where the JavaScript client is: ``streaming_json/static/patches.js``, shipped in the wheel."""

from __future__ import annotations

from pathlib import Path

__all__ = ["static_path"]


def static_path() -> Path:
    """The folder of the package's static files (``patches.js``), to serve as they are: Starlette's
    ``StaticFiles(directory=static_path())``, or copied into a site's assets."""
    return Path(__file__).resolve().parent.parent / "static"
