"""Graph-to-graph passes, one module per pass (see fxdsl/universe.py)."""
