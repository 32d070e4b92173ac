# Strata task runner. `make run` and `make test` are the two README commands.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test check lint format bench clean screenshots

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Strata needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m app.core.embeddings.install_model
	@touch $(STAMP)

run: install
	$(VENV)/bin/strata

check: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test: check
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

bench: install
	@for script in tests/benchmarks/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Every screen at 1440x900 and 900x600, offscreen, from the demo: docs/screenshots/<screen>-<w>x<h>.png
screenshots: install
	QT_QPA_PLATFORM=offscreen $(PY) -m app.ui.screenshots

clean:
	rm -rf $(VENV) build *.egg-info
