# Two commands do all the set-up on a fresh machine with Python 3.11+, make and git:
#   make run    install into .venv (what running needs, no dev tools), prepare the demo store (a run
#               and the demo reviewers' queues, once), import their labels/ (again: nothing new) and
#               open the review TUI on the bundled demo set
#   make test   install into .venv (with dev tools) and run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run

.PHONY: run test lint bench screenshots calibration install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The dev install (make test, lint, ...) holds everything running needs too.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP) $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

install: $(STAMP)

# The store gets its run and the demo reviewers' queues before their labels are imported, so every
# imported label lands on a review item (no "not review items" note) and their queues read done.
run: $(RUN_STAMP)
	$(BIN)/qaeval queue >/dev/null 2>&1 || { $(BIN)/qaeval run >/dev/null && $(BIN)/qaeval queue >/dev/null; }
	$(BIN)/qaeval labels import labels
	$(BIN)/qaeval review

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check qaeval_tui tests benchmarks scripts
	$(BIN)/ruff format --check qaeval_tui tests benchmarks scripts
	$(BIN)/mypy qaeval_tui tests/tui/scenes scripts/screenshots.py
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python -m benchmarks

screenshots: $(STAMP)
	$(BIN)/python -m scripts.screenshots screenshots

# The demo's committed calibration artifact, from the committed labels/ under the repo's config
# (its [calibration] bar and [rubric]): calibrated in an empty folder holding copies of both, so no
# local store (and none of its adjudications) slips in. Exit 1 (RETUNE) and 3 (INSUFFICIENT) are
# verdicts, not failures; 2 is. tests/cli/test_calibration_artifact.py fails when the committed
# file is stale.
calibration: $(STAMP)
	@work="$$(mktemp -d)" && cp -R labels "$$work/labels" && cp qaeval.toml "$$work/qaeval.toml" && cd "$$work" && \
	  "$(CURDIR)/$(BIN)/qaeval" --config qaeval.toml calibrate --labels labels \
	  --out "$(CURDIR)/baselines/calibration.json" >/dev/null; \
	  status=$$?; rm -rf "$$work"; [ $$status -ne 2 ]
