PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve play test warm-fast lint typecheck jscheck bench loadtest attack cluster-bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[cli,server,dev]'
	# The editable install leaves src/ uncompiled, and these machines set
	# PYTHONDONTWRITEBYTECODE=1: without this every flip7 command compiled its modules again.
	$(BIN)/python -m compileall -q src
	touch $(STAMP)

# make serve HOST=0.0.0.0 PORT=8080: friends on your network can join (the addresses they
# open are printed); PUBLIC_URL=https://... when the server sits behind a proxy or tunnel.
HOST ?= 127.0.0.1
PORT ?= 8000
PUBLIC_URL ?=

serve: $(STAMP)
	$(BIN)/flip7 serve --host '$(HOST)' --port '$(PORT)'$(if $(PUBLIC_URL), --public-url '$(PUBLIC_URL)')

play: $(STAMP)
	$(BIN)/flip7 play

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts

typecheck: $(STAMP)
	$(BIN)/mypy --strict src

# The browser client (src/flip7/server/static/js, plain ES modules, no build step): tsc
# checks its JSDoc types (tsconfig.json), ESLint its code (eslint.config.js), both pinned in
# package-lock.json. Without npm the check is skipped outside CI (as the tests skip a
# service that is not installed) and fails under CI=true; make serve never needs Node.
NODE_BIN := node_modules/.bin
NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

ifneq ($(shell command -v npm 2>/dev/null),)
jscheck: $(NODE_STAMP)
	$(NODE_BIN)/tsc -p .
	$(NODE_BIN)/eslint src/flip7/server/static/js
else
jscheck:
	@if [ "$$CI" = true ]; then echo "jscheck: npm is required when CI=true" >&2; exit 1; fi
	@echo "jscheck: skipped, npm is not installed (Debian: apt-get install nodejs npm)"
endif

# Two workers (the CI machine has two cores), a test file per worker at a time, so that a
# file's server, browser or database fixture is started once; the slowest files first, in
# the order tests/conftest.py gives (SLOW_FILES). TEST_WORKERS=0 runs in-process.
TEST_WORKERS ?= 2

# flip7.fast's compiled loop is built (a clean clone: a minute or two of one core) in the
# background while the linters run; the tests' fixture waits for it on its lock file.
warm-fast: $(STAMP)
	@($(BIN)/python -c 'import flip7.fast; flip7.fast.warm()' >/dev/null 2>&1 &)

test: warm-fast lint typecheck jscheck
	$(BIN)/python -m pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder) --durations=20

bench: $(STAMP)
	$(BIN)/flip7 bench --players 4 --bot basic

loadtest: $(STAMP)
	$(BIN)/flip7 loadtest --tables 200 --clients 4 --duration 60

attack: $(STAMP)
	$(BIN)/flip7 attack

# Needs PostgreSQL's binaries, redis-server and haproxy (Debian); about 10 minutes.
cluster-bench: $(STAMP)
	$(BIN)/flip7 cluster-bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache node_modules
