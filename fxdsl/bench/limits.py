"""The physical limits the report reads each workload against.

The H100 SXM5 figures are NVIDIA's (H100 Tensor Core GPU datasheet): dense
tensor-core peaks (the datasheet's headline numbers are with 2:4 sparsity,
twice these) and the HBM3 bandwidth. The `copy` variant measures what the
memory actually delivers; these are the ceilings no variant can pass.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """A device's peak arithmetic (TFLOPS by element type) and bandwidth."""

    name: str
    tflops: dict[str, float]
    tb_per_s: float

    def floor_ms(self, flops: int | None, nbytes: int, element: str) -> float:
        """The least time a workload can take: its FLOPs at the peak for
        `element` or its bytes at full bandwidth, whichever is longer."""
        compute = (flops or 0) / (self.tflops[element] * 1e12)
        return 1e3 * max(compute, nbytes / (self.tb_per_s * 1e12))

    def describe(self, element: str) -> str:
        return (
            f"{self.name}: {self.tflops[element]:g} TFLOPS {element} dense, "
            f"{self.tb_per_s:g} TB/s"
        )


H100_SXM = Limits(
    "H100 SXM",
    # f32 without tensor cores; tf32 is what f32 GEMMs reach with TF32 on
    {"bf16": 989.4, "f16": 989.4, "tf32": 494.7, "f32": 66.9},
    3.35,
)
