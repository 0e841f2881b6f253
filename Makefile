# Every target builds .venv by itself, so each command works on a fresh machine.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[apps,server,env,ray,dev]'
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

# The HAProxy configuration of docs/deploy.md runs in a test: Debian's haproxy, installed
# the same way (without it that test is skipped).
HAPROXY := /usr/sbin/haproxy
$(HAPROXY):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing HAProxy for the proxy test (apt-get)"; \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q haproxy) \
			>/tmp/tienlen-haproxy.log 2>&1 || echo "HAProxy could not be installed: see /tmp/tienlen-haproxy.log"; \
	else echo "HAProxy is missing: the proxy test will be skipped (apt-get install haproxy)"; fi

# The engine compiled with mypyc (opt-in, see setup.py): the package installed into
# build/compiled, used by putting that folder first on PYTHONPATH. The source stays the
# package that .venv runs.
COMPILED := build/compiled
$(COMPILED)/.built: $(STAMP) setup.py $(shell find src/tienlen -type f -not -path "*/__pycache__/*")
	rm -rf $(COMPILED) build/lib.* build/temp.*  # no stale modules from an earlier build
	TIENLEN_COMPILE=1 $(BIN)/pip install --quiet --no-build-isolation --no-deps --target $(COMPILED) .
	touch $@

# The engine's own tests (no apps, no server), run again on the compiled build.
ENGINE_TESTS := tests/test_compiled.py tests/test_cards.py tests/test_codes.py tests/test_fixtures.py \
	tests/test_packed.py \
	tests/test_game.py tests/test_golden.py tests/test_match.py tests/test_movegen_reference.py \
	tests/test_notation.py tests/test_observation.py tests/test_properties.py tests/test_record.py \
	tests/test_rules.py tests/test_scoring.py tests/test_solver.py tests/test_gc_pause.py

.PHONY: play serve test test-fast test-compiled compiled lint bench venv screenshots
venv: $(STAMP)

play: $(STAMP)
	$(BIN)/tienlen play

serve: $(STAMP)
	$(BIN)/tienlen serve

test: $(STAMP) $(CHROMIUM) $(HAPROXY)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/pytest -n auto

# The quick loop: every test not marked slow (pyproject.toml says which are), on every core,
# with Hypothesis's fast profile (a tenth of each property test's examples: tests/quick.py);
# no lint, no browser. make test still runs everything.
test-fast: $(STAMP)
	$(BIN)/pytest -n auto -m "not slow" --hypothesis-profile=fast

compiled: $(COMPILED)/.built

test-compiled: $(COMPILED)/.built
	PYTHONPATH=$(COMPILED) $(BIN)/python -c "import tienlen, sys; sys.exit(not tienlen.COMPILED)"
	PYTHONPATH=$(COMPILED) $(BIN)/pytest -n auto -p no:cacheprovider $(ENGINE_TESTS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

screenshots: $(STAMP) $(CHROMIUM)
	$(BIN)/python docs/screenshots.py

bench: $(STAMP) $(COMPILED)/.built
	$(BIN)/python bench/engine.py --compare $(COMPILED)
