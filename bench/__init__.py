"""streaming_json's benchmarks, run from the repository root as ``python -m bench SUITE [options]``.

``python -m bench --list`` lists the suites (``bench/suites/``); ``bench/harness.py`` is the one harness they all run
through; ``bench/workloads.py`` the texts and pieces they share. See ``bench/README.md``.
"""
