# Parlour: `make run` serves the API, `make test` runs the suite. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.parlour-installed
PYTEST_ARGS ?=
# Two pytest processes (pytest-xdist), one per core: the suite takes about 16 min instead of 26 to 29.
# Each starts its own Redis and picks free ports; PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= 2
LOADTEST_ARGS ?=

.PHONY: run test lint loadtest clean venv web docs

run: $(STAMP) docs
	$(BIN)/python -m ops.supervisor

test: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# Parlour (HTTP and WebSocket, every game) against boardgame.io, its peer (loadtests/peer, Node): Node and npm
# come from apt-get when missing (as in .ci/run), the peer's packages from `npm ci` when its lockfile is newer than
# the last install. LOADTEST_ARGS="--runs 1 --seconds 15" for a short run; "--baseline" for the older comparison
# with a bare Flask + Redis app (loadtests/benchmark.py).
loadtest: $(STAMP)
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
		SUDO=""; if [ "$$(id -u)" != 0 ]; then SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm; \
	fi
	$(BIN)/python -m loadtests.versus_peer $(LOADTEST_ARGS)

venv: $(STAMP)

# The guide: docs/ built with MkDocs into site/ (served at /guide); a broken link or anchor fails the build.
# Built again only when a page, the config, openapi.yaml or the code its reference pages are generated from
# (settings, the `parlour` command, the games) is newer than the last build.
DOCS_STAMP := site/.parlour-built
DOCS_SOURCES := mkdocs.yml openapi.yaml model/settings.py tournaments/cli.py ai/levels.py \
	$(shell find docs engine parlour_envs -type f -not -path '*/__pycache__/*' 2>/dev/null)
docs: $(DOCS_STAMP)

$(DOCS_STAMP): $(STAMP) $(DOCS_SOURCES)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site
	touch $@

# Vendor the front-end packages (web/package-lock.json) into web/vendor; the output is committed, so
# `make run` never needs Node. Needs npm; run it after changing web/package.json.
SWAGGER_UI := web/node_modules/swagger-ui-dist
NOBLE_HASHES := web/node_modules/@noble/hashes
web:
	cd web && npm ci --ignore-scripts --no-audit --no-fund
	rm -rf web/vendor/swagger-ui && mkdir -p web/vendor/swagger-ui
	cp $(SWAGGER_UI)/swagger-ui-bundle.js $(SWAGGER_UI)/swagger-ui.css $(SWAGGER_UI)/LICENSE $(SWAGGER_UI)/NOTICE web/vendor/swagger-ui/
	rm -rf web/vendor/noble-hashes && mkdir -p web/vendor/noble-hashes
	cp $(NOBLE_HASHES)/sha2.js $(NOBLE_HASHES)/_md.js $(NOBLE_HASHES)/_u64.js $(NOBLE_HASHES)/utils.js $(NOBLE_HASHES)/LICENSE web/vendor/noble-hashes/

# Re-install only when pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --editable '.[dev]'
	touch $@

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
		echo "Parlour needs Python 3.11 or newer, but '$(PYTHON)' was not found. Install it, or run: make PYTHON=/path/to/python3.11 ..." >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "Parlour needs Python 3.11 or newer; '$(PYTHON)' is $$($(PYTHON) --version 2>&1). Run: make PYTHON=python3.11 ..." >&2; exit 1; }
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
		echo "Could not create $(VENV): on Debian or Ubuntu, install the python3-venv package first." >&2; exit 1; }

clean:
	rm -rf $(VENV) *.egg-info build site .pytest_cache .ruff_cache .mypy_cache loadtests/results
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
