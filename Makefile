# Two commands: `make run` serves everything, `make test` tests everything.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run test lint install bench bench-full clean

run: $(STAMP)
	$(PY) -m toolrouter.devservices --serve --port $(PORT)

test: $(STAMP)
	$(PY) -m toolrouter.devservices -- $(PY) -m pytest $(PYTEST_ARGS)

# ruff (style, imports, bugs) and mypy (types; strict for engine/ and shared/), as pyproject.toml sets them.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m toolcatalog.local_model
	touch $(STAMP)

clean:
	rm -rf $(VENV) .data

# Benchmarks (bench/report.py): both rewrite BENCHMARKS.md from the scripts' own output.
bench: $(STAMP)
	$(PY) -m toolrouter.devservices -- $(PY) bench/report.py

bench-full: $(STAMP)
	$(PY) -m toolrouter.devservices -- $(PY) bench/report.py --full
