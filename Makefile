# Two entry points, each doing all of its own set-up on a fresh Debian machine with
# Python 3.11: a virtual environment with the project installed, a Docker engine (installed
# and started when running as root and none answers), and the sandbox images.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup sandbox clean

# fixed26 is C++: the engine and C++'s image only (a run builds the images its suite needs
# on first use anyway; this says so up front).
run: $(STAMP)
	$(BIN)/harness sandbox up --language cpp
	$(BIN)/harness run --suite fixed26 --model gold --trials 1

# Two workers, one per core: most tests wait on compilers, containers and servers in turn,
# and a test file stays on one worker so its module fixtures are built once; files go out
# slowest first (tests/conftest.py's order, which xdist would otherwise replace).
test: setup
	$(BIN)/pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=30

setup: $(STAMP) sandbox

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[train,dev,ray]'
	touch $(STAMP)

# Every language's image, as the tests use them all. Never fails: without Docker it says so
# and the local backend is used.
sandbox: $(STAMP)
	$(BIN)/harness sandbox up

clean:
	rm -rf $(VENV)
