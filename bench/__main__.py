"""``python -m bench SUITE [options]``: run one suite through the harness; ``python -m bench --list``: the suites."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from pathlib import Path
from typing import Optional

from bench import harness
from bench.suites import SUITES


def _suite_list() -> str:
    width = max(len(name) for name in SUITES)
    lines = [f"  {suite.name.ljust(width)}  {suite.summary} [needs {suite.needs}]" for suite in SUITES.values()]
    return "suites:\n" + "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    top = argparse.ArgumentParser(
        prog="python -m bench",
        description="Run one benchmark suite of streaming_json (from the repository root).",
        epilog=_suite_list() + "\n\n`python -m bench SUITE --help` gives a suite's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--list", action="store_true", help="list the suites and exit")
    top.add_argument("suite", nargs="?", choices=list(SUITES), metavar="SUITE", help="the suite to run")
    # The suite's own parser reads what follows its name: its module is imported only once it is chosen.
    chosen = top.parse_args(argv[:1] if argv and not argv[0].startswith("-") else argv)
    if chosen.list:
        print(_suite_list())
        return 0
    if chosen.suite is None:
        top.print_usage(sys.stderr)
        print(_suite_list(), file=sys.stderr)
        return 2

    suite = SUITES[chosen.suite]
    module = import_module(suite.module)
    parser = argparse.ArgumentParser(
        prog=f"python -m bench {suite.name}",
        description=(module.__doc__ or suite.summary).split("\n\n")[0],
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer rounds: a smoke test")
    parser.add_argument("--json", type=Path, help="write the environment, the options and the raw results here")
    style = parser.add_mutually_exclusive_group()
    style.add_argument("--markdown", action="store_true", help="tables as markdown")
    style.add_argument("--text", action="store_true", help="tables as aligned text")
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    markdown = args.markdown or (module.MARKDOWN and not args.text)
    session = harness.Session(suite.name, args, markdown, harness.environment(module.PACKAGES))
    status: int = module.run(session)
    session.write_json()
    return status


if __name__ == "__main__":
    sys.exit(main())
