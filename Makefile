# The verbs people expect: run, test, lint, format, docs, bench, chaos. Everything installs into .venv.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DOCS_PORT ?= 8001
# Material for MkDocs prints a banner about its future on every build; it says nothing here.
export NO_MKDOCS_2_WARNING := 1

.PHONY: run test test-side-by-side test-multihost test-fast lint format clean chaos bench bench-push docs docs-check

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-local: requirements/base.txt requirements/local.txt | $(VENV)/bin/python
	$(BIN)/pip install --quiet -r requirements/local.txt
	touch $@

$(VENV)/.installed-test: requirements/base.txt requirements/local.txt requirements/test.txt requirements/docs.txt client/pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -r requirements/test.txt
	touch $@ $(VENV)/.installed-local

## run: migrate, seed the demo user and samples, start web + worker + beat (Ctrl-C stops all)
run: $(VENV)/.installed-local
	@command -v $${CHROMIUM_PATH:-chromium} >/dev/null 2>&1 || echo "make run: Chromium is \
	not installed, so jobs with renderer 'chromium' will fail (the other renderers work). \
	Install it with: apt-get install chromium (or set CHROMIUM_PATH to its binary)."
	@command -v $${OFFICE_PATH:-soffice} >/dev/null 2>&1 && /usr/bin/python3 -c "import uno" \
	>/dev/null 2>&1 || echo "make run: LibreOffice is not installed, so office conversions \
	(POST /api/v1/convert, the Gotenberg LibreOffice route) and Word templates (engine docx) \
	will fail; the other jobs work. \
	Install it with: apt-get install libreoffice-writer-nogui libreoffice-calc-nogui \
	libreoffice-impress-nogui python3-uno"
	DJANGO_SETTINGS_MODULE=$${DJANGO_SETTINGS_MODULE:-config.settings.local} $(BIN)/python -m config.devstack

## test: the whole suite on embedded defaults (or DATABASE_URL / REDIS_URL when set), in
## PYTEST_SUITE_WORKERS processes side by side (pytest-xdist; default 4; PYTEST_WORKERS=0 for one process); the
## multi-host tests, whose timings want the machine to themselves, run alone after the rest.
## With PYTEST_ARGS, one run of just those arguments.
PYTEST_WORKERS ?= 2
# The whole suite mostly waits (on its web and worker processes, browsers, timers): with
# two test processes a fifth to a third of two cores stayed idle, four keep them busy (the
# side-by-side part 12:05 -> 11:10 here). PYTEST_WORKERS, when given, sets it too.
PYTEST_SUITE_WORKERS ?= $(if $(filter command line environment,$(origin PYTEST_WORKERS)),$(PYTEST_WORKERS),4)
# Each process a test starts (web, workers, `make run`, the CLIs) imports the project, and
# pytest rewrites every test module's asserts: with PYTHONDONTWRITEBYTECODE set in the
# environment each of them compiled it all again (0.3 s a process start, ~8 s a collection).
test test-side-by-side test-multihost test-fast: export PYTHONDONTWRITEBYTECODE :=
ifeq ($(strip $(PYTEST_ARGS)),)
test: test-side-by-side test-multihost
else
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)
endif

## test-side-by-side: make test's first part, everything but the multi-host tests, in four processes
test-side-by-side: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n $(PYTEST_SUITE_WORKERS) --dist loadgroup -m "not (container or multihost)"

## test-multihost: make test's second part, the multi-host tests alone (only their directory
## is collected: a test marked multihost elsewhere stops the collection, tests/markers.py),
## three at a time, each test process with hosts of its own
# They mostly wait (on renders held open, outages, heartbeats: 60 s of CPU in 90 s on two
# cores), so three at a time hold their windows where a busy side-by-side run did not. In
# file order (no shuffle) xdist hands out the five tests round the processes, so the longest
# (the Redis/PostgreSQL/store outage, ~65 s) has a process to itself and the other four pair
# up beside it: 2:01 one at a time, 1:30 two at a time, 1:14-1:18 three at a time.
test-multihost: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 3 --dist load -p no:randomly -m multihost tests/multihost

## test-fast: the everyday tier: every test that starts no process, browser, container or
## network namespace and is not heavy (tests/markers.py); under two minutes on two cores
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --reuse-db \
	  -m "$$($(BIN)/python -c 'from tests.markers import FAST_TIER; print(FAST_TIER)')" $(PYTEST_ARGS)

## bench-push: 1,000 WebSocket then 1,000 SSE followers of one job on one web process (not in CI)
bench-push: $(VENV)/.installed-test
	$(BIN)/python tests/bench/push_fanout.py $(BENCH_ARGS)

## lint: ruff (lint and format check), mypy --strict (django-stubs, DRF stubs, celery-types, types-channels) on all app code,
## import-linter's contracts (pyproject.toml: the layers, rendering plain, no import circles)
## and a model change without its migration (makemigrations --check)
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	env -u DATABASE_URL $(BIN)/python manage.py makemigrations --check --dry-run  # models vs migrations: no database needed

## docs: serve the docs site (MkDocs, docs/) with live reload on DOCS_PORT (default 8001)
docs: $(VENV)/.installed-test
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

## docs-check: build the docs site strictly into var/site (a broken link or anchor fails)
docs-check: $(VENV)/.installed-test
	$(BIN)/mkdocs build --strict --site-dir var/site

format: $(VENV)/.installed-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var

## bench: submit latency vs the bare /livez baseline, render time vs bare xhtml2pdf, and
## tenant B's job latency behind tenant A's 500-job burst (fair dispatch on and off), and
## 1,000 records as one run vs 1,000 separate submits (records/s, ZIP first byte, web memory), and
## a one-page Word invoice end to end vs a cold soffice and a warm conversion alone
bench: $(VENV)/.installed-test
	$(BIN)/python -m tests.bench.run
	$(BIN)/python -m tests.bench.fairness
	$(BIN)/python -m tests.bench.runs
	$(BIN)/python -m tests.bench.office

## chaos: soak test, 500 jobs while worker children are SIGKILLed (not in CI)
chaos: $(VENV)/.installed-test
	$(BIN)/python -m tests.chaos.soak
