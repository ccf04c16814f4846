"""`python -m fxdsl.bench` is `fxdsl-bench`."""

from fxdsl.bench.cli import main

raise SystemExit(main())
