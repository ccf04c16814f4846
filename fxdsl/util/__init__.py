"""Plain-Python helpers every layer may use: lazy exports, atomic file
writes, the pass-pipeline syntax. Nothing here imports xDSL or fxdsl."""
