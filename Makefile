# KiraOS Desktop developer commands. Every target creates the virtual environment when missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DATA_DIR ?=
RUN_ARGS ?=

.PHONY: run test test-packaging bench dist selftest-dist screenshots clean i18n qm

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test,build]'
	touch $(STAMP)

# Compiled translations (.qm, not committed) beside the catalogues; the window also compiles a missing
# or outdated one into its cache at start, so this only saves that step.
# Each catalogue is compiled when its .ts is newer than its .qm (not at every start).
CATALOGUES := $(wildcard resources/i18n/*.ts)
COMPILED := $(CATALOGUES:.ts=.qm)
qm: $(COMPILED)

resources/i18n/%.qm: resources/i18n/%.ts | $(STAMP)
	$(PY) tools/i18n.py compile $<

# After changing UI strings: re-extract them into resources/i18n/*.ts, then translate what is unfinished
# (docs/i18n.md); the check fails until every string has its translation.
i18n: $(STAMP)
	$(PY) tools/i18n.py update
	$(PY) tools/i18n.py check

run: $(STAMP) qm
	$(VENV)/bin/kiraos-desktop $(if $(DATA_DIR),--data-dir $(DATA_DIR)) $(RUN_ARGS)

# The suite runs on every core (pytest-xdist; each worker has its own Qt application and its own
# throw-away PostgreSQL server). TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= auto
test: $(STAMP) qm
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# The tests marked `packaging` (left out of `make test`): build the wheel and check what it carries.
test-packaging: $(STAMP) qm
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m packaging $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/run_all.py

# One folder dist/kiraos-desktop/ with both executables. No --clean: the analysis cached in
# build/pyinstaller is reused when nothing changed (`make clean` drops it).
DIST_DIR := dist/kiraos-desktop
dist: $(STAMP)
	$(PY) -m PyInstaller --noconfirm --workpath build/pyinstaller --distpath dist build.spec

# Runs the frozen self-test with both executables (the windowed one too), connecting to a throw-away
# PostgreSQL server when one can be started, and checks the folder's size budget (tools/selftest_dist.py).
selftest-dist: dist
	$(PY) tools/selftest_dist.py $(DIST_DIR)

screenshots: $(STAMP) qm
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/kiraos-desktop --screenshot docs/screenshots

clean:
	rm -rf build dist *.egg-info .pytest_cache resources/i18n/*.qm
