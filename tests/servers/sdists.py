"""A peer's sdist, fetched at test time through the index pip is configured with, and unpacked once.

vLLM's tool-parser tests ship in its sdist only. ``pip download --no-binary :all:`` would fetch it and then try to
build it (and fail: vLLM's build needs CUDA's toolchain), so the link is found by pip's own finder instead, with
pip's own configuration (its config files, ``PIP_*`` variables, the index and find-links they name): the same
candidates ``pip download`` would pick from, and the same session (certificates, proxies, retries). The archive is
checked against the hash the index gives, and unpacked into the environment's own folder (``sys.prefix``), which no
commit carries and ``make clean`` removes; a second run reads it from there. The download runs in a child process
(this file run as a script): importing pip's internals in the test process would warn there (setuptools' distutils
shim, in a fresh environment), and warnings are errors in the tests.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path(sys.prefix) / "peer-sdists"


def _find_link(project: str, version: str) -> object:
    """The index's link to the sdist of ``project==version``, as pip's finder sees it."""
    from pip._internal.commands import create_command

    command = create_command("download")
    options, _ = command.parse_args(["--no-deps", "--no-binary", ":all:", f"{project}=={version}"])
    with contextlib.ExitStack() as stack:
        stack.enter_context(command.main_context())
        session = command.get_default_session(options)
        finder = command._build_package_finder(options, session)
        for candidate in finder.find_all_candidates(project):
            link = candidate.link
            if str(candidate.version) == version and not link.is_wheel and link.filename.endswith(".tar.gz"):
                return link, session, stack.pop_all()
    raise RuntimeError(f"no sdist of {project}=={version} on the index pip is configured with")


def _download(project: str, version: str, into: Path) -> Path:
    """The sdist of ``project==version`` downloaded into ``into``, by this file run as a script."""
    command = [sys.executable, "-W", "ignore", __file__, project, version, str(into)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the download of {project}=={version}'s sdist failed:\n{done.stderr[-3000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def _download_here(project: str, version: str, into: Path) -> Path:
    link, session, cleanup = _find_link(project, version)  # type: ignore[misc]
    with cleanup:
        target = into / link.filename
        partial = target.with_suffix(".part")
        digest = hashlib.new(link.hash_name or "sha256")
        with session.get(link.url_without_fragment, stream=True) as response, partial.open("wb") as out:
            response.raise_for_status()
            for chunk in response.iter_content(1 << 20):
                digest.update(chunk)
                out.write(chunk)
        if link.hash is not None and digest.hexdigest() != link.hash:
            partial.unlink()
            raise RuntimeError(f"{link.filename}: its {link.hash_name} is not the one the index gives")
        partial.rename(target)
        return target


def unpacked_sdist(project: str, version: str, only: tuple[str, ...] = ("tests/", "pyproject.toml")) -> Path:
    """The root of ``project==version``'s unpacked sdist (``.../vllm-0.33.0-tests``), fetched on first use, holding
    only the files whose paths start with one of ``only`` (its tests and its pytest configuration): a test run from
    there must import the installed package, never the sdist's source of it (pytest puts the root on ``sys.path``)."""
    root = CACHE / f"{project}-{version}-tests"
    done = root / ".unpacked"
    if done.exists():
        return root
    CACHE.mkdir(parents=True, exist_ok=True)
    archives = sorted(CACHE.glob(f"{project}-{version}.tar.gz"))
    archive = archives[0] if archives else _download(project, version, CACHE)
    shutil.rmtree(root, ignore_errors=True)
    staging = CACHE / f".{project}-{version}.staging"
    shutil.rmtree(staging, ignore_errors=True)
    prefixes = tuple(f"{project}-{version}/{start}" for start in only)
    with tarfile.open(archive) as tar:
        members = [member for member in tar.getmembers() if member.name.startswith(prefixes)]
        if not members:
            raise RuntimeError(f"{archive.name} has no {only}")
        tar.extractall(staging, members=members, filter="data")
    (staging / f"{project}-{version}").rename(root)
    shutil.rmtree(staging)
    done.touch()
    return root


if __name__ == "__main__":
    print(_download_here(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
