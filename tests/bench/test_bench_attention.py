"""benchmarks/bench_attention.py lowers every configuration it times (the
timing itself needs a GPU: benchmarks/device_session.sh attention)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bench_attention.py"


def lower_only(*args: str) -> dict[str, str]:
    """Each configuration's name -> its plan summary."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--lower-only", "--batch", "1", "--seq", "16", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [line.split("  ", 1) for line in result.stdout.splitlines()]
    return {name.strip(): summary.strip() for name, summary in rows}


@pytest.mark.parametrize("bias", [False, True])
def test_every_configuration_lowers(bias: bool) -> None:
    rows = lower_only(*(["--bias"] if bias else []))
    # unfused, BLOCKS x KEYS, the MIN_BLOCKS row, and with --bias the unfolded one
    assert len(rows) == 1 + 3 * 3 + 1 + bias
    assert next(iter(rows)) == "unfused"
    assert rows["unfused"].endswith("-")  # no attention kernel
    # fused: one launch (the bias folded in); 12 heads x 16 rows in BLOCK-row tiles
    assert rows["fused b=32 k=4"] == "1 steps    1 launches  grid 12 x 32"
    assert rows["fused b=128 k=2"] == "1 steps    1 launches  grid 12 x 128"
    assert rows["fused b=64 k=4 min6"] == "1 steps    1 launches  grid 12 x 64"
    if bias:  # the bias add in a kernel of its own
        assert rows["fused unfolded"] == "2 steps    2 launches  grid 12 x 64"
