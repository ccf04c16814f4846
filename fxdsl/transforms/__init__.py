"""Graph-to-graph passes, one module per pass (see fxdsl/pipeline/universe.py)."""
