"""`fxdsl-bench`: fxdsl against its baselines on the issue-9 workloads.

Modules: `workloads` (what is timed), `timing` (CUDA events, L2 flush,
perf_counter), `variants` (fxdsl fused/unfused/cudagraph, torch, copy),
`harness` (runs them side by side, checks numerics), `report` (JSON, markdown,
PNG) and `cli` (the `fxdsl-bench` command, also `python -m fxdsl.bench`).
"""
