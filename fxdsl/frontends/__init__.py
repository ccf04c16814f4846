"""Ways into graph IR: the Python tracer (and later torch.export)."""
