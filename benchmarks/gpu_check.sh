#!/usr/bin/env bash
# The GPU check on the device machine, as one command (benchmarks/gpu_check.py
# says what it runs). Needs the xDSL wheels in ./.whl (../shared/tools/device-wheels,
# device tool `carry: [".whl"]`); results go to $OUT. Extra arguments go to
# gpu_check.py (e.g. --stages tests, --bench-budget 200).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade \
    --target /tmp/site .whl/*.whl
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1 FXDSL_CACHE_DIR=/tmp/fxc
# fxdsl runs from the checkout, not installed: give it the metadata an install
# would write, so torch.compile(backend="fxdsl") finds its entry point there.
python3 benchmarks/entry_points.py /tmp/site
exec python3 benchmarks/gpu_check.py --out "${OUT:-/tmp/fxdsl-gpu-check}" "$@"
