"""benchmarks/bench_attention.py lowers every configuration it times (the
timing itself needs a GPU: benchmarks/device_session.sh attention)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bench_attention.py"


def test_every_configuration_lowers() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--lower-only", "--batch", "1", "--seq", "16"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 3 * 3  # unfused, then BLOCKS x KEYS
    assert lines[0].startswith("unfused")
    assert lines[0].split()[-1] == "-"  # no attention kernel
    # fused: one launch; 12 heads x 16 rows in tiles of BLOCK rows
    assert "fused b=32 k=4       1 steps    1 launches  grid 12 x 32" in lines
    assert "fused b=128 k=2      1 steps    1 launches  grid 12 x 128" in lines
