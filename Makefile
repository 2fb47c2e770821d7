# make run   - set up (local virtual environment, compiled core) and stream a sample tool call through the parser
# make test  - set up and run the whole test suite on both backends
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench fuzz annotate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python setup.py pyproject.toml streaming_json/_core.pyx streaming_json/_core.pxd
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4" wheel
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[test]'
	$(BIN)/python -c 'import streaming_json as s; print("streaming_json backend:", s.BACKEND)'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m streaming_json --demo

test: $(STAMP)
	STREAMING_JSON_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[bench]'
	$(BIN)/python bench/run.py
	$(BIN)/python bench/sdk.py

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet atheris || true
	$(BIN)/python fuzz/run.py --minutes $${FUZZ_MINUTES:-60}

annotate: $(BIN)/python
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.1,<4"
	$(BIN)/python -m cython -3 --annotate streaming_json/_core.pyx -o streaming_json/_core.c
	@echo "annotated HTML: streaming_json/_core.html"

clean:
	rm -rf $(VENV) build dist *.egg-info streaming_json/*.so streaming_json/_core.c streaming_json/_core.html
