# make run        - set up (local virtual environment, compiled core) and stream a sample tool call through the parser
# make test       - set up, lint, and run the whole test suite on both backends
# make lint       - ruff (check and format) on the Python code, cython-lint on the compiled core
# make test-pypy  - the suite on PyPy, where the pure backend is the one installed (needs pypy3 and pypy3-venv)
PYTHON ?= python3
PYPY ?= pypy3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYPY_VENV := .venv-pypy
BENCH_VENV := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed
PRODUCER_VENV := .venv-producer
PRODUCER_STAMP := $(PRODUCER_VENV)/.installed
PYPY_STAMP := $(PYPY_VENV)/.installed
# Tests that compare wall-clock times run alone, after the rest has run in two workers (one a core). pytest-benchmark
# (from `make bench`) warns that it cannot time under xdist, and warnings are errors: it is not loaded there.
PYTEST_PARALLEL := -m "not timing" -n 2 -p no:benchmark
PYTEST_TIMING := -m timing

.PHONY: run test lint test-pypy bench bench-producer fuzz annotate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python setup.py pyproject.toml streaming_json/_core.pyx streaming_json/_core.pxd
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4" wheel
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[test,lint]'
	$(BIN)/python -c 'import streaming_json as s; print("streaming_json backend:", s.BACKEND)'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m streaming_json --demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# cython-lint runs pycodestyle by name: the venv's must be on PATH.
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/cython-lint streaming_json/_core.pyx streaming_json/_core.pxd

test: lint
	STREAMING_JSON_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q $(PYTEST_PARALLEL)
	STREAMING_JSON_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q $(PYTEST_TIMING)

$(PYPY_VENV)/bin/python:
	$(PYPY) -m venv $(PYPY_VENV)
	$(PYPY_VENV)/bin/python -m pip install --quiet --upgrade pip

$(PYPY_STAMP): $(PYPY_VENV)/bin/python setup.py pyproject.toml
	$(PYPY_VENV)/bin/python -m pip install --quiet "setuptools>=77" wheel
	@# pydantic-core's newest releases have no wheel for PyPy 3.9: take a pydantic whose core has one, not a Rust build.
	$(PYPY_VENV)/bin/python -m pip install --quiet --only-binary=pydantic-core --no-build-isolation -e '.[test]'
	$(PYPY_VENV)/bin/python -c 'import streaming_json as s; print("streaming_json on PyPy, backend:", s.BACKEND)'
	touch $(PYPY_STAMP)

# The timing tests skip on PyPy (tests/conftest.py), so everything runs in parallel.
test-pypy: $(PYPY_STAMP)
	$(PYPY_VENV)/bin/python -m pytest -q -n 2 -p no:benchmark

# The peers get a virtual environment of their own: instructor pins an older jiter, which takes openai back to a
# release the test suite's SDK models do not match. The bench extra pins every peer exactly (pyproject.toml), so that
# two runs of `make bench` time the same peers.
$(BENCH_STAMP): setup.py pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip "setuptools>=77" "Cython>=3.1,<4" wheel
	$(BENCH_VENV)/bin/python -m pip install --quiet --no-build-isolation -e '.[bench]'
	touch $(BENCH_STAMP)

# Every suite runs through one harness, `python -m bench SUITE` from the repository root (`python -m bench --list`).
# The SDK helpers are timed in the test environment, which has the SDKs' newest releases (the users' peers); in the
# bench environment instructor holds openai at an older one.
bench: $(BENCH_STAMP) $(STAMP)
	$(BENCH_VENV)/bin/python -m bench peers
	$(BIN)/python -m bench sdk
	$(BENCH_VENV)/bin/python -m bench features
	$(BENCH_VENV)/bin/python -m bench typed

# vLLM's and SGLang's own tool parsers get an environment of their own (bench/producer-requirements.txt says what and
# why): both pin releases of torch and openai that agree with nothing else here, so every package is pinned there and
# installed with --no-deps, torch as the CPU build.
$(PRODUCER_STAMP): bench/producer-requirements.txt setup.py pyproject.toml streaming_json/_core.pyx streaming_json/_core.pxd
	$(PYTHON) -m venv $(PRODUCER_VENV)
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --upgrade pip "setuptools>=77" "Cython>=3.1,<4" wheel
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --no-deps -r bench/producer-requirements.txt
	$(PRODUCER_VENV)/bin/python -m pip install --quiet --no-build-isolation --no-deps -e .
	touch $(PRODUCER_STAMP)

# The producer suite (tool calls out of a model's raw output, against vLLM's and SGLang's parsers): about 40 minutes.
bench-producer: $(PRODUCER_STAMP)
	$(PRODUCER_VENV)/bin/python -m bench producer

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet atheris || true
	$(BIN)/python fuzz/run.py --minutes $${FUZZ_MINUTES:-60}

annotate: $(BIN)/python
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4"
	$(BIN)/python -m cython -3 --annotate streaming_json/_core.pyx -o streaming_json/_core.c
	@echo "annotated HTML: streaming_json/_core.html"

clean:
	rm -rf $(VENV) $(PYPY_VENV) $(BENCH_VENV) $(PRODUCER_VENV) build dist *.egg-info streaming_json/*.so streaming_json/_core.c streaming_json/_core.html
