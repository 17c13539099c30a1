# One entry point. Every target creates the virtual environment it needs when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-stamp

.PHONY: test demo bench wiki lint clean

# validators/ is installed as a copy (gitstore_validators), so a change to it reinstalls too
$(STAMP): pyproject.toml $(wildcard validators/*.py)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# The checkout's bytecode, written as pip writes an installed package's: the tests, the demo
# and the benchmarks start gitstore hundreds of times, and where PYTHONDONTWRITEBYTECODE is set
# (as many container images set it) every start would compile each module it imports again.
# Up-to-date files are skipped.
BYTECODE = $(BIN)/python -m compileall -q gitstore tools bench

## test: run the whole test suite (pytest on both cores)
test: $(STAMP)
	@$(BYTECODE)
	$(BIN)/python -m pytest -n 2 -q

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
