# Every target builds .venv by itself, so each command works on a fresh machine.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[apps,server,env,dev]'
	touch $(STAMP)

# The browser tests drive Debian's Chromium: installed with apt when missing and possible
# (as root); without it those tests are skipped and say why.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Chromium for the browser tests (apt-get)"; \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium) \
			>/tmp/tienlen-chromium.log 2>&1 || echo "Chromium could not be installed: see /tmp/tienlen-chromium.log"; \
	else echo "Chromium is missing: the browser tests will be skipped (apt-get install chromium)"; fi

.PHONY: play serve test lint bench venv screenshots
venv: $(STAMP)

play: $(STAMP)
	$(BIN)/tienlen play

serve: $(STAMP)
	$(BIN)/tienlen serve

test: $(STAMP) $(CHROMIUM)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/pytest -n auto

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

screenshots: $(STAMP) $(CHROMIUM)
	$(BIN)/python docs/screenshots.py

bench: $(STAMP)
	$(BIN)/python bench/engine.py
