# One entry point. Every target creates the virtual environment it needs when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-stamp

.PHONY: test demo bench wiki lint clean

# validators/ is installed as a copy (gitstore_validators), so a change to it reinstalls too
# A Python older than 3.11 (pyproject's requires-python) is named before a venv is made of it, and
# a venv made of one before is named too, rather than reused by every later run.
NEEDS = import sys; sys.exit(sys.version_info < (3, 11))
$(STAMP): pyproject.toml $(wildcard validators/*.py)
	@test -x $(BIN)/python || $(PYTHON) -c '$(NEEDS)' || { echo "gitstore needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1): run make PYTHON=python3.11 (or newer)" >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c '$(NEEDS)' || { echo "$(VENV) was made with $$($(BIN)/python -V 2>&1), older than gitstore needs (3.11): make clean, then make PYTHON=python3.11 (or newer)" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# The checkout's bytecode, written as pip writes an installed package's: the tests, the demo
# and the benchmarks start gitstore hundreds of times, and where PYTHONDONTWRITEBYTECODE is set
# (as many container images set it) every start would compile each module it imports again.
# Up-to-date files are skipped.
BYTECODE = $(BIN)/python -m compileall -q gitstore tools bench

# One pytest worker more than there are cores: the tests spend part of their time waiting on
# the git, ssh-keygen and gitstore processes they start, and the extra worker fills it (on
# two cores, a fifth less time than one worker a core).
CORES   := $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
WORKERS ?= $(shell echo $$(( $(CORES) + 1 )))

## test: run the whole test suite (pytest on every core, and one worker more)
test: $(STAMP)
	@$(BYTECODE)
	$(BIN)/python -m pytest -n $(WORKERS) -q

## demo: run gitstore end to end on a sample repository in a temporary folder (KEEP=1 keeps it)
demo: $(STAMP)
	@$(BYTECODE)
	KEEP=$(KEEP) $(BIN)/python -m tools.demo

## bench: run the benchmarks and print their ratios
bench: $(STAMP)
	@$(BYTECODE)
	$(BIN)/python -m bench

## wiki: regenerate the generated pages of okf/wiki/ (contracts, index) and check every page
wiki: $(STAMP)
	$(BIN)/python -m tools.wiki

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist
