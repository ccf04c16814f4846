"""The Python tracer: `fxdsl.trace`, the `ops` it records, scopes and
module calls. It builds graph IR; it knows nothing of PyTorch."""
