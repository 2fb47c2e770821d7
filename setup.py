"""Build the compiled core where possible; install the pure-Python backend alone where not.

Only CPython compiles: other interpreters (PyPy) would run the core through their emulation of CPython's C API,
which is slow and untested here, so they install the pure backend, which their JIT runs, without trying (as msgpack
and multidict do). Set ``STREAMING_JSON_NO_EXTENSIONS=1`` to skip compiling on CPython too; where compiling fails, the
install falls back to the pure backend with one warning line.

The source model: a git checkout has only ``_core.pyx`` and needs Cython to build the core (``pyproject.toml``
requires it on CPython). An sdist carries ``_core.pyx`` and the C that Cython generated from it, so that it builds
with a C compiler alone; ``sdist`` refuses to make one without that C (``tests/test_build.py`` checks both).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = Path(__file__).parent
CORE = HERE / "streaming_json" / "_core"


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


class SdistWithGeneratedC(sdist):
    """An sdist that carries the generated C (``_extensions()`` has Cython write it), or none at all."""

    def run(self) -> None:
        if not CORE.with_suffix(".c").exists():
            raise SystemExit(
                "error: streaming_json/_core.c is missing, and an sdist must carry it: make the sdist on CPython "
                "with Cython installed and without STREAMING_JSON_NO_EXTENSIONS"
            )
        super().run()


def _extensions() -> list[Extension]:
    if platform.python_implementation() != "CPython":
        return []
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
        annotate=annotate,
        quiet=True,
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt, "sdist": SdistWithGeneratedC})
