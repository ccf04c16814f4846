"""Command-line drivers: fxdsl-opt, fxdsl-run."""
