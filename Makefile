# The two quick-start commands: `make run` (console bot, embedded defaults) and `make test`.
# `make slack`, `make discord`, `make telegram`, `make teams` and `make snapshotter` run
# the chat processes with the same virtual environment; `statebot` itself lives in
# .venv/bin (not on PATH until you `source .venv/bin/activate`). Extra options go in
# ARGS, e.g. make slack ARGS=--socket.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run slack discord telegram teams snapshotter test lint bench bench-quick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/statebot console $(ARGS)

slack: $(STAMP)
	$(BIN)/statebot slack $(ARGS)

discord: $(STAMP)
	$(BIN)/statebot discord $(ARGS)

teams: $(STAMP)
	$(BIN)/statebot teams $(ARGS)

telegram: $(STAMP)
	$(BIN)/statebot telegram $(ARGS)

snapshotter: $(STAMP)
	$(BIN)/statebot snapshotter $(ARGS)

# make test runs the suite on every core (pytest-xdist), each test file on one worker
# (--dist loadfile), so a file's tests keep their order and their shared servers;
# PYTEST_ARGS adds options, e.g. PYTEST_ARGS="-n 0 -x" for one process.
# the web console's browser tests drive Debian's Chromium (no browser downloads here)
CHROMIUM ?= /usr/bin/chromium

$(CHROMIUM):
	apt-get install -y chromium || (apt-get update && apt-get install -y chromium)

test: $(STAMP) $(CHROMIUM)
	$(BIN)/ruff check core bots tools tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/pytest -n auto --dist loadfile $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check core bots tools tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

bench-quick: $(STAMP)
	$(BIN)/python -m bench.run_all --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
