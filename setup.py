"""Build the compiled core where possible; install the pure-Python backend alone where not.

Only CPython compiles: other interpreters (PyPy) would run the core through their emulation of CPython's C API,
which is slow and untested here, so they install the pure backend, which their JIT runs, without trying (as msgpack
and multidict do). Set ``STREAMING_JSON_NO_EXTENSIONS=1`` to skip compiling on CPython too; where compiling fails, the
install falls back to the pure backend with one warning line.

The compiled modules are the core (``_core.pyx``) and the model-output layer's fast paths (``_relay.pyx``). The
source model: a git checkout has only the ``.pyx`` files and needs Cython to build them (``pyproject.toml`` requires
it on CPython). An sdist carries them and the C that Cython generated from them, so that it builds with a C compiler
alone; ``sdist`` refuses to make one without that C (``tests/test_build.py`` checks both).
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
# The compiled modules: the core, and the model-output layer's per-piece fast paths (which cimport the core). Each
# has a pure-Python twin that is used where it is not built.
COMPILED = ("streaming_json._core", "streaming_json.model_output._relay")


def _source(module: str, suffix: str) -> Path:
    return HERE.joinpath(*module.split(".")).with_suffix(suffix)


class OptionalBuildExt(build_ext):
    """A build_ext that falls back to the pure-Python backend, with one warning line, when compiling fails."""

    warned = False

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

    @classmethod
    def _warn_fallback(cls, error: BaseException) -> None:
        if cls.warned:  # (the next module failed the same way)
            return
        cls.warned = True
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        sys.stderr.write(
            f"WARNING: streaming_json: the compiled core could not be built ({reason}); "
            "installing the pure-Python backend\n"
        )


class SdistWithGeneratedC(sdist):
    """An sdist that carries the generated C (``_extensions()`` has Cython write it), or none at all."""

    def run(self) -> None:
        for module in COMPILED:
            if not _source(module, ".c").exists():
                raise SystemExit(
                    f"error: {_source(module, '.c').relative_to(HERE)} is missing, and an sdist must carry it: make "
                    "the sdist on CPython with Cython installed and without STREAMING_JSON_NO_EXTENSIONS"
                )
        super().run()


def _extensions() -> list[Extension]:
    if platform.python_implementation() != "CPython":
        return []
    if os.environ.get("STREAMING_JSON_NO_EXTENSIONS", "") not in ("", "0"):
        return []
    if not all(_source(module, ".pyx").exists() or _source(module, ".c").exists() for module in COMPILED):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        if not all(_source(module, ".c").exists() for module in COMPILED):
            return []
        return [Extension(module, [str(_source(module, ".c").relative_to(HERE))]) for module in COMPILED]
    annotate = os.environ.get("STREAMING_JSON_ANNOTATE", "") not in ("", "0")
    return cythonize(
        [Extension(module, [str(_source(module, ".pyx").relative_to(HERE))]) for module in COMPILED],
        annotate=annotate,
        quiet=True,
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt, "sdist": SdistWithGeneratedC})
