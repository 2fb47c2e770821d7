"""Build the compiled core when possible; install the pure-Python backend alone when not.

Set ``STREAMING_JSON_NO_EXTENSIONS=1`` to skip compiling on purpose. Where Cython is installed the ``.pyx`` is
compiled; an sdist carries the generated C, so it builds with a C compiler alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
CORE = HERE / "streaming_json" / "_core"

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "embedsignature": True,
    "freethreading_compatible": False,
}


class OptionalBuildExt(build_ext):
    """A build_ext that falls back to the pure-Python backend, with one warning line, when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            self._warn_fallback(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            self._warn_fallback(error)

    @staticmethod
    def _warn_fallback(error: BaseException) -> None:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        sys.stderr.write(
            f"WARNING: streaming_json: the compiled core could not be built ({reason}); "
            "installing the pure-Python backend\n"
        )


def _extensions() -> list[Extension]:
    if os.environ.get("STREAMING_JSON_NO_EXTENSIONS", "") not in ("", "0"):
        return []
    pyx = CORE.with_suffix(".pyx")
    generated_c = CORE.with_suffix(".c")
    if not pyx.exists() and not generated_c.exists():
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        if not generated_c.exists():
            return []
        return [Extension("streaming_json._core", [str(generated_c.relative_to(HERE))])]
    annotate = os.environ.get("STREAMING_JSON_ANNOTATE", "") not in ("", "0")
    return cythonize(
        [Extension("streaming_json._core", [str(pyx.relative_to(HERE))])],
        compiler_directives=COMPILER_DIRECTIVES,
        annotate=annotate,
        quiet=True,
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
