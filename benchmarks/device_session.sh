#!/usr/bin/env bash
# What a session with the GPU runs, one stage per device call (each stays
# well inside the 10-minute limit of one call). Run from the repository root
# on the device machine, with the xdsl wheels carried in .whl
# (../shared/tools/device-wheels):
#
#   bash benchmarks/device_session.sh tests     # pytest -m gpu, about 4 min
#   bash benchmarks/device_session.sh bench     # fxdsl-bench, every workload
#   bash benchmarks/device_session.sh host      # bench_host.py + ncu on the rows
#
# Logs and reports go to $OUT (the device tool brings that folder back);
# the bench stage also writes benchmarks/results/<date>-h100.{json,md,png}
# there, to be copied into the repository and committed.
set -euo pipefail
stage="${1:?usage: device_session.sh tests|bench|host}"
case "$stage" in
tests | bench | host) ;;
*)
    echo "error: unknown stage '$stage' (tests, bench or host)" >&2
    exit 1
    ;;
esac
out="${OUT:-/tmp/fxdsl-out}"
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade \
    --target /tmp/site .whl/*.whl
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1 FXDSL_CACHE_DIR=/tmp/fxc

case "$stage" in
tests)
    python3 -m pytest -m gpu -q -s tests 2>&1 | tee "$out/gpu-tests.log"
    ;;
bench)
    python3 -m fxdsl.bench --backend cuda --tag h100 --out "$out" \
        2>&1 | tee "$out/bench.log"
    ;;
host)
    python3 benchmarks/bench_host.py 2>&1 | tee "$out/host.log"
    # hardware counters of the row kernels (Firecracker machines only):
    # DRAM bytes per kernel show whether a row is read once
    ncu --clock-control none --kernel-name regex:"softmax|layer_norm" \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
        python3 -m fxdsl.bench --backend cuda --workloads softmax,layer_norm \
        --variants fxdsl --runs 1 --warmup 0 --out /tmp/ncu-bench --quiet \
        2>&1 | tee "$out/ncu-rows.log"
    ;;
esac
