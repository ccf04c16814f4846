"""The ATen → graph op table of the torch.export importer.

One handler per family of ATen overloads, registered under the overloads'
names (`"aten.add.Tensor"`). A handler gets an `AtenCall` (the fx node, its
arguments with fx nodes replaced by traced `Tensor`s, and torch's inferred
result) and builds graph ops through `fxdsl.ops`, so shapes are checked by
the dialect's own rules. Torch's type promotion and scalar arguments become
explicit here: operands are cast to the dtype torch computed for the node,
scalars take the tensor's element type, and the importer casts a result whose
dtype still differs from torch's. Inference no-ops (dropout in eval, clone,
alias, same-dtype casts, metadata asserts) return their input; ops that
draw random numbers are `graph.random` draws (`aten_random`).

Nothing here imports torch at module level: the table is plain data, and
torch values are only inspected through duck typing (`.shape`, `.dtype`).
"""

from __future__ import annotations

# Every family registers its handlers into ATEN when imported: import them
# all here, so the table is complete wherever it is read through this module.
from fxdsl.frontends import (  # noqa: F401
    aten_attention_grad,
    aten_bessel,
    aten_chebyshev,
    aten_compute,
    aten_conv,
    aten_conv_backward,
    aten_counting,
    aten_elementwise,
    aten_fake_quantize,
    aten_fractional_pool,
    aten_linalg,
    aten_math,
    aten_matrix_exp,
    aten_max_pool_backward,
    aten_movement,
    aten_pad_backward,
    aten_polynomials,
    aten_pooling,
    aten_pooling_backward,
    aten_random,
    aten_resample,
    aten_select,
    aten_special,
    aten_zeta,
)
from fxdsl.frontends.aten_compute import FoldedMask, attention
from fxdsl.frontends.aten_elementwise import FLOAT_ELEMENTWISE, handler_for
from fxdsl.frontends.aten_random import DROPOUTS, RANDOM_OPS, draws_random
from fxdsl.frontends.aten_registry import (
    ATEN,
    TORCH_DTYPES,
    AtenCall,
    Decompose,
    Handler,
    UnsupportedNode,
    aten,
    cast_to,
    graph_dtype,
    target_name,
)

__all__ = [
    "ATEN",
    "DROPOUTS",
    "FLOAT_ELEMENTWISE",
    "RANDOM_OPS",
    "TORCH_DTYPES",
    "AtenCall",
    "Decompose",
    "FoldedMask",
    "Handler",
    "UnsupportedNode",
    "aten",
    "attention",
    "cast_to",
    "draws_random",
    "graph_dtype",
    "handler_for",
    "target_name",
]
