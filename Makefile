# Two entry points (README): `make demo` runs the main job, `make test` the tests.
# Both create ./.venv and install fxdsl into it on first use.
VENV ?= .venv
BIN := $(VENV)/bin
# The PyTorch import is tested on real models in CI, so the venv gets torch
# and transformers too. torch==2.13.0 resolves to the CPU build on these
# machines (a bare `torch` pulls a multi-GB CUDA build). No torchvision: its
# registry wheel does not load with the CPU torch and breaks transformers.
TORCH_PACKAGES ?= torch==2.13.0 transformers

# The TIMM suite needs torchvision, which does not load beside the CPU torch
# above: its own venv, with the CUDA build of torch (about 5.5 GB; it runs
# on the CPU here) and the torchvision that loads with it.
TIMM_VENV ?= .venv-timm
TIMM_PACKAGES ?= torch==2.14.1 torchvision==0.29.1 timm

.PHONY: demo test test-all test-timm install
install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m pip install -q $(TORCH_PACKAGES)
	touch $@

# HF GPT-2 (12 layers): import, dedup, decompose, fuse, run, compare with torch.
demo: install
	$(BIN)/python examples/pipeline.py --blocks 12 --backend auto

# Lint (ruff: the rules in pyproject.toml, and formatting), then lit, so
# pytest's summary line is the last thing printed.
# Budget: `make test` from a fresh clone in at most 10 minutes on a 2-core
# machine (it took 23.6 minutes when one bench test ran the whole harness).
# Both runners use every core and print as they go, so a CI log shows
# progress: lit one line per file (its default -j is the core count),
# pytest a line of dots per 1-2% through pytest-xdist (-n auto; --dist
# loadfile keeps a file's tests, and its module fixtures, on one worker) and
# the slowest tests at the end, to keep an eye on the budget.
# Measured 2026-11-26 on a fresh clone, with 6 other agents on the 2 cores
# (load 4-22): ruff 1 s, lit 264 s wall / 99 s CPU, pytest 1227 s wall /
# 896 s CPU (2207 tests). Wall time swings with the load; the CPU time,
# about 1000 s in all, is the steady number: about 8.5 minutes of wall time
# on an otherwise idle 2-core machine.
# The TIMM and torchvision tests import timm/torchvision at collection, which
# only .venv-timm has.
PYTEST := $(BIN)/pytest -n auto --dist loadfile --durations=15 \
	--ignore=tests/frontends/test_timm_suite.py --ignore=tests/frontends/test_torchvision_suite.py
test: install
	$(BIN)/ruff check fxdsl tests benchmarks examples
	$(BIN)/ruff format --check fxdsl tests benchmarks examples
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/lit tests/filecheck
	$(PYTEST) -m "not slow and not timm"

# What CI runs: `make test`, then the slow suites against real references
# (the Hugging Face model list in f32/bf16/f16, OpInfo, the bench harness on
# every workload), marked `slow`.
test-all: test test-timm
	$(PYTEST) -m "slow and not timm"

$(TIMM_VENV)/.installed: pyproject.toml
	python3 -m venv $(TIMM_VENV)
	$(TIMM_VENV)/bin/python -m pip install -q --upgrade pip
	$(TIMM_VENV)/bin/python -m pip install -q -e '.[dev]' $(TIMM_PACKAGES)
	touch $@

# PyTorch's TIMM model list (tests/frontends/test_timm_suite.py, marked timm)
# and TorchBench's torchvision models (test_torchvision_suite.py), which need
# the same environment.
test-timm: $(TIMM_VENV)/.installed
	$(TIMM_VENV)/bin/pytest -n auto --dist load --durations=10 -m timm \
		tests/frontends/test_timm_suite.py tests/frontends/test_torchvision_suite.py
