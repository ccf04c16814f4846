#!/usr/bin/env bash
# What a session with the GPU runs, one stage per device call (each stays
# well inside the 10-minute limit of one call). Run from the repository root
# on the device machine, with the xdsl wheels carried in .whl
# (../shared/tools/device-wheels):
#
#   bash benchmarks/device_session.sh tests     # pytest -m gpu, about 4 min
#   bash benchmarks/device_session.sh bench     # fxdsl-bench, the workloads
#   bash benchmarks/device_session.sh attention # fused attention vs unfused, knobs, bias fold
#   bash benchmarks/device_session.sh gemm      # the GEMM-epilogue study (max-autotune)
#   bash benchmarks/device_session.sh host      # bench_host.py + ncu on the rows
#
# Logs and reports go to $OUT (the device tool brings that folder back);
# the bench and gemm stages write <date>-h100.{json,md,png} and
# <date>-h100-gemm.* there, to be copied to benchmarks/results and committed.
set -euo pipefail
stage="${1:?usage: device_session.sh tests|bench|attention|gemm|host}"
case "$stage" in
tests | bench | attention | gemm | host) ;;
*)
    echo "error: unknown stage '$stage' (tests, bench, attention, gemm or host)" >&2
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
    workloads=$(python3 -c 'from fxdsl.bench.workloads import WORKLOADS as W
print(",".join(w.name for w in W if not w.max_autotune))')
    python3 -m fxdsl.bench --backend cuda --tag h100 --out "$out" \
        --workloads "$workloads" 2>&1 | tee "$out/bench.log"
    ;;
attention)
    python3 benchmarks/bench_attention.py 2>&1 | tee "$out/attention.log"
    python3 benchmarks/bench_attention.py --bias 2>&1 | tee -a "$out/attention.log"
    python3 benchmarks/bench_attention.py --batch 1 --seq 64 2>&1 | tee -a "$out/attention.log"
    ;;
gemm)
    python3 -m fxdsl.bench --backend cuda --tag h100-gemm --out "$out" \
        --workloads gemm,gemm_bias_gelu 2>&1 | tee "$out/gemm.log"
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
