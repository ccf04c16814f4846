"""Progressive lowering of graph IR to GPU kernels (see pipeline.py)."""
