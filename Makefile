# Two entry points (README): `make demo` runs the main job, `make test` the tests.
# Both create ./.venv and install fxdsl into it on first use.
VENV ?= .venv
BIN := $(VENV)/bin
# The PyTorch import is tested on real models in CI, so the venv gets torch
# and transformers too. torch==2.13.0 resolves to the CPU build on these
# machines (a bare `torch` pulls a multi-GB CUDA build). No torchvision: its
# registry wheel does not load with the CPU torch and breaks transformers.
TORCH_PACKAGES ?= torch==2.13.0 transformers

.PHONY: demo test test-all install
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
test: install
	$(BIN)/ruff check fxdsl tests benchmarks examples
	$(BIN)/ruff format --check fxdsl tests benchmarks examples
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/lit -s tests/filecheck
	$(BIN)/pytest -q -m "not slow"

# What CI runs: `make test`, then the slow suites against real references
# (the Hugging Face model list in f32/bf16/f16, OpInfo), marked `slow`.
test-all: test
	$(BIN)/pytest -q -m slow
