"""Output targets of `fxdsl-opt -t <name>` (registered in `fxdsl.pipeline.universe`)."""
