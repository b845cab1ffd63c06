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
# slowest first (tests/conftest.py's order, which xdist would otherwise replace). The
# slowest files are C++'s, so C++'s image is built first and the other languages' images
# are built while those run (a test that needs one before it is ready waits for its build:
# sandbox/image.py's lock); a failed build fails the command.
test: $(STAMP)
	$(BIN)/harness sandbox up --language cpp
	@$(BIN)/harness image build >$(VENV)/image-build.log 2>&1 & build=$$!; \
	$(BIN)/pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=30; rc=$$?; \
	if ! wait $$build; then echo "image build failed:"; tail -n 20 $(VENV)/image-build.log; rc=1; fi; \
	exit $$rc

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
