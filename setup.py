"""Build the compiled core where possible; install the pure-Python backend alone where not.

Only CPython compiles: other interpreters (PyPy) would run the core through their emulation of CPython's C API,
which is slow and untested here, so they install the pure backend, which their JIT runs, without trying (as msgpack
and multidict do). Set ``STREAMING_JSON_NO_EXTENSIONS=1`` to skip compiling on CPython too.

Where compiling fails (no C compiler, no Python headers, no Cython), the build installs the pure backend: it says so
in one warning line (which pip shows only with ``-v``), the wheel is the pure one (``py3-none-any``, no platform
tag), and the package says so at import (``_backend.py``) from the file ``COMPILE_FAILED_NOTE`` the build leaves in it.

The compiled modules are the core (``_core.pyx``) and the model-output layer's fast paths (``_relay.pyx``). The
source model: a git checkout has only the ``.pyx`` files and needs Cython to build them (``pyproject.toml`` requires
it on CPython). An sdist carries them and the C that Cython generated from them, so that it builds with a C compiler
alone; ``sdist`` writes that C beside the ``.pyx`` files and refuses to make an sdist without it.

A build from a checkout writes nothing into it: Cython's C, the compiled objects and the egg-info go to a temporary
folder of the build, removed when it ends, so that ``pip install .`` leaves the checkout as it was and no build
installs an extension that an earlier one compiled (``tests/test_build.py`` checks these).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext
from setuptools.command.egg_info import egg_info
from setuptools.command.sdist import sdist

HERE = Path(__file__).parent
# The compiled modules: the core, and the model-output layer's per-piece fast paths (which cimport the core). Each
# has a pure-Python twin that is used where it is not built.
COMPILED = ("streaming_json._core", "streaming_json.model_output._relay")
# The file a build that could not compile leaves in the package, with the reason: streaming_json/_backend.py warns
# at import when it finds it (pip hides the build's own warning line).
COMPILE_FAILED_NOTE = "COMPILE_FAILED"
# An sdist (which has PKG-INFO at its root) compiles the C it carries; a checkout has Cython generate it.
IS_SDIST = HERE.joinpath("PKG-INFO").exists()
# `setup.py sdist` (as `python -m build` runs it) writes the generated C and the egg-info into the source tree,
# which the sdist is made from; `make clean` removes them.
MAKING_SDIST = "sdist" in sys.argv[1:]


def _source(module: str, suffix: str) -> Path:
    return HERE.joinpath(*module.split(".")).with_suffix(suffix)


# The build's temporary folder, once made (a one-item list, not a global: setuptools runs this file with exec() in a
# function's locals, where PyPy refuses a module-level annotation of a name a function declares global).
_SCRATCH: list[Path] = []


def _scratch() -> Path:
    """The build's temporary folder, made on first use and removed when the build ends."""
    if not _SCRATCH:
        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="streaming_json-build-")))
        atexit.register(shutil.rmtree, _SCRATCH[0], ignore_errors=True)
    return _SCRATCH[0]


def _compiling() -> bool:
    if platform.python_implementation() != "CPython":
        return False
    return os.environ.get("STREAMING_JSON_NO_EXTENSIONS", "") in ("", "0")


def _cythonize(extensions: list[Extension], into: Path | None) -> list[Extension]:
    """The extensions with Cython's C for their ``.pyx`` sources, written into ``into`` (None: beside them)."""
    from Cython.Build import cythonize

    annotate = os.environ.get("STREAMING_JSON_ANNOTATE", "") not in ("", "0")
    build_dir = None if into is None else str(into)
    return cythonize(extensions, annotate=annotate, quiet=True, build_dir=build_dir)


class BuildOutsideTheCheckout(build):
    """``build/`` in the build's temporary folder, unless ``--build-base`` names one."""

    def initialize_options(self) -> None:
        super().initialize_options()
        self.build_base = str(_scratch() / "build")


class EggInfoOutsideTheCheckout(egg_info):
    """The egg-info in the build's temporary folder, except for an sdist, which carries it."""

    def initialize_options(self) -> None:
        super().initialize_options()
        if not MAKING_SDIST:
            self.egg_base = str(_scratch())


class OptionalBuildExt(build_ext):
    """A build_ext that builds every compiled module or none: where one fails, it removes what it built, says so in
    one warning line and in the package's ``COMPILE_FAILED_NOTE``, and the distribution has no extension left (so the
    wheel is pure: ``WheelTaggedByWhatWasBuilt``)."""

    def run(self) -> None:
        sources = [extension.sources for extension in self.extensions]
        try:
            if not IS_SDIST:  # (without Cython, setuptools has named the .pyx sources' C: cythonize is the import)
                # The C in place of the .pyx sources, on the Extensions setuptools has prepared for building.
                for extension, translated in zip(self.extensions, _cythonize(self.extensions, _scratch() / "cython")):
                    extension.sources = translated.sources
            super().run()
        except Exception as error:
            self._fall_back(error)
        else:
            self._note_path().unlink(missing_ok=True)  # (an in-place build's note from a failed build before)
        finally:
            # The sources as the project names them: the C's temporary path is no source (an editable install's
            # egg_info, which runs after the build, lists them and refuses an absolute path).
            for extension, named in zip(self.extensions, sources):
                extension.sources = named

    def _note_path(self) -> Path:
        return Path(self.get_ext_fullpath(COMPILED[0])).parent / COMPILE_FAILED_NOTE

    def _fall_back(self, error: BaseException) -> None:
        for output in self.get_outputs():
            Path(output).unlink(missing_ok=True)
        reason = _why(error)
        note = self._note_path()
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"{reason}\n", encoding="utf-8")
        self.distribution.ext_modules = []
        sys.stderr.write(
            f"WARNING: streaming_json: the compiled core could not be built ({reason}); "
            "installing the pure-Python backend\n"
        )

    def get_outputs(self) -> list[str]:
        # After a fallback, the note is the build's one output (setuptools lists outputs for the wheel's RECORD).
        if not self.distribution.ext_modules:
            note = self._note_path()
            return [str(note)] if note.exists() else []
        return super().get_outputs()


def _why(error: BaseException) -> str:
    """The reason a build failed, in a line: the command that failed, where one did, by its program's name."""
    if isinstance(error, ImportError):
        return f"Cython is not installed: {error}"
    cause: BaseException | None = error
    while cause is not None:  # setuptools wraps the failed command's CalledProcessError in its own errors
        if isinstance(cause, subprocess.CalledProcessError) and isinstance(cause.cmd, (list, tuple)):
            return f"the command {cause.cmd[0]} exited with status {cause.returncode}"
        cause = cause.__cause__ or cause.__context__
    lines = str(error).splitlines()
    return lines[0][:200] if lines else type(error).__name__


class WheelTaggedByWhatWasBuilt(bdist_wheel):
    """A wheel tagged by what the build produced: ``py3-none-any`` where nothing compiled.

    bdist_wheel decides whether a wheel is pure (its tag, and whether its files go to purelib) when its options are
    finalized, before the build has run; here the answer is read where bdist_wheel uses it, after the build.
    """

    @property
    def root_is_pure(self) -> bool:
        return not (self.distribution.has_ext_modules() or self.distribution.has_c_libraries())

    @root_is_pure.setter
    def root_is_pure(self, value: bool | None) -> None:
        pass  # bdist_wheel's own decision, made before the build


class SdistWithGeneratedC(sdist):
    """An sdist that carries the generated C, which Cython writes beside the ``.pyx`` files, or none at all."""

    def run(self) -> None:
        if _compiling() and not IS_SDIST:
            with contextlib.suppress(ImportError):  # (the check below says what is missing)
                _cythonize([Extension(module, [_relative(_source(module, ".pyx"))]) for module in COMPILED], None)
        for module in COMPILED:
            if not _source(module, ".c").exists():
                raise SystemExit(
                    f"error: {_source(module, '.c').relative_to(HERE)} is missing, and an sdist must carry it: make "
                    "the sdist on CPython with Cython installed and without STREAMING_JSON_NO_EXTENSIONS"
                )
        super().run()


def _relative(path: Path) -> str:
    return str(path.relative_to(HERE))


def _extensions() -> list[Extension]:
    """The compiled modules from their sources: the C an sdist carries, else the ``.pyx`` files (which
    ``OptionalBuildExt`` has Cython translate when it runs, so that a command that builds nothing does not)."""
    if not _compiling():
        return []
    suffix = ".c" if IS_SDIST else ".pyx"
    if not all(_source(module, suffix).exists() for module in COMPILED):
        return []
    return [Extension(module, [_relative(_source(module, suffix))]) for module in COMPILED]


setup(
    ext_modules=_extensions(),
    cmdclass={
        "build": BuildOutsideTheCheckout,
        "egg_info": EggInfoOutsideTheCheckout,
        "build_ext": OptionalBuildExt,
        "bdist_wheel": WheelTaggedByWhatWasBuilt,
        "sdist": SdistWithGeneratedC,
    },
)
