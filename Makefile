# Every target builds .venv by itself, so each command works on a fresh machine.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[apps,server,dev]'
	touch $(STAMP)

.PHONY: play serve test lint bench venv
venv: $(STAMP)

play: $(STAMP)
	$(BIN)/tienlen play

serve: $(STAMP)
	$(BIN)/tienlen serve

test: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/pytest -n auto

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/engine.py
