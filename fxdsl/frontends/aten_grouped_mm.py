"""Grouped matmuls (mixture-of-experts layers) as static-shape torch code.

A mixture-of-experts layer sorts its token rows by expert and multiplies
each run of rows by its expert's weight: `out[rows of e] = input[rows of e]
@ weight[e]`, where `offs` holds the cumulative end row of each expert's
run. Hugging Face's MoE layers (Mixtral, Qwen-MoE, GPT-OSS, ...) call it
as `aten._grouped_mm` or, where that cannot run (f32 under Dynamo), as
their own custom op `transformers::grouped_mm_fallback` (a Python loop over
the experts torch cannot trace into), and its backward as
`transformers::grouped_mm_fallback_backward`.

The run lengths are data: a static-shape graph cannot slice by them. So
each row's expert is computed (`expert_of_rows`: how many runs end at or
before it), every expert multiplies every row (one batched GEMM,
`E x S x N` outputs, E times the FLOPs of the grouped product, no gathered
weights), and each row keeps its own expert's product (`where`, so an
overflow in another expert's product cannot turn into a NaN; summing one
product and zeros is exact in any precision). Rows past the last run are
zero, as the fallback leaves them. On a GPU the dense product is one
tensor-core GEMM; a decode step reads every expert's weights, as a grouped
product of a batch that reaches every expert does.

These functions are decompositions (`aten_decompositions.OWN`): they are
traced with `make_fx` on the node's fake values and imported op by op.
"""

from __future__ import annotations

from typing import Any

from fxdsl.frontends.aten_ops import UnsupportedNode


def expert_of_rows(rows: int, offs: Any) -> Any:
    """`(E, rows)` booleans: entry `[e, s]` is whether row `s` is in expert
    `e`'s run (`offs`: cumulative run ends, ascending)."""
    import torch

    index = torch.arange(rows, device=offs.device, dtype=offs.dtype)
    expert = (index[:, None] >= offs[None, :]).sum(dim=1)
    experts = torch.arange(offs.shape[0], device=offs.device, dtype=expert.dtype)
    return experts[:, None] == expert[None, :]


def _grouped(input: Any, weight: Any, offs: Any) -> Any:
    """`(S, K)` rows sorted by expert, `(E, K, N)` weights -> `(S, N)`."""
    import torch

    if input.dim() != 2 or weight.dim() != 3 or offs.dim() != 1:
        raise UnsupportedNode(
            f"a grouped matmul of a {input.dim()}-d input, {weight.dim()}-d weights "
            f"and {offs.dim()}-d offsets (fxdsl takes 2-d by 3-d, 2-d by 2-d and "
            "3-d by 2-d)"
        )
    chosen = expert_of_rows(input.shape[0], offs)
    every = torch.matmul(input.unsqueeze(0), weight)  # (E, S, N)
    return torch.where(chosen.unsqueeze(-1), every, 0.0).sum(dim=0)


def _grouped_columns(input: Any, weight: Any, offs: Any) -> Any:
    """`(M, K)` by `(K, N)` with the runs along K -> `(E, M, N)`: expert
    `e`'s columns of `input` times its rows of `weight`. A weight gradient
    (the tokens' rows transposed, times their output gradients): what the
    backward of a grouped product calls."""
    import torch

    chosen = expert_of_rows(input.shape[1], offs).unsqueeze(1)  # (E, 1, K)
    return torch.matmul(torch.where(chosen, input.unsqueeze(0), 0.0), weight)


def _grouped_outputs(input: Any, weight: Any, offs: Any) -> Any:
    """`(E, M, K)` by `(K, N)` with the runs along N -> `(M, N)`: expert
    `e`'s run of output columns is `input[e]` times those columns."""
    import torch

    chosen = expert_of_rows(weight.shape[1], offs).unsqueeze(1)  # (E, 1, N)
    every = torch.matmul(input, weight)  # (E, M, N)
    return torch.where(chosen, every, 0.0).sum(dim=0)


def grouped_mm_fallback(input: Any, weight: Any, offs: Any) -> Any:
    """`transformers::grouped_mm_fallback(input, weight, offs)`."""
    return _grouped(input, weight, offs)


def grouped_mm_fallback_backward(
    input: Any, weight: Any, offs: Any, grad_output: Any
) -> Any:
    """`transformers::grouped_mm_fallback_backward`: the input's gradient
    (the grouped product with each expert's weight transposed) and each
    expert's weight gradient (its rows of the input, transposed, times
    their output gradients)."""
    import torch

    grad_input = _grouped(grad_output, weight.transpose(1, 2), offs)
    chosen = expert_of_rows(input.shape[0], offs).unsqueeze(-1)  # (E, S, 1)
    rows = torch.where(chosen, input.unsqueeze(0), 0.0)  # (E, S, K)
    grad_weight = torch.matmul(rows.transpose(1, 2), grad_output.unsqueeze(0))
    return grad_input, grad_weight.to(weight.dtype)


def grouped_mm(
    input: Any,
    weight: Any,
    offs: Any = None,
    bias: Any = None,
    out_dtype: Any = None,
) -> Any:
    """`aten._grouped_mm`: with `offs`, by the operands' dims: 2-d by 3-d
    (runs of rows, the product above), 2-d by 2-d (runs along K, one
    product per expert: a weight gradient), 3-d by 2-d (runs of output
    columns); without, 3-d by 3-d, a batched matmul. A bias or another
    output dtype is refused (the node runs in torch)."""
    import torch

    if bias is not None:
        raise UnsupportedNode("a grouped matmul with a bias")
    if out_dtype is not None and out_dtype != input.dtype:
        raise UnsupportedNode(f"a grouped matmul into {out_dtype}")
    if offs is None:
        if input.dim() != 3 or weight.dim() != 3:
            raise UnsupportedNode("a grouped matmul without offsets but not 3-d by 3-d")
        return torch.bmm(input, weight)
    if offs.dim() == 1 and weight.dim() == 2 and input.dim() in (2, 3):
        if input.dim() == 2:
            return _grouped_columns(input, weight, offs)
        return _grouped_outputs(input, weight, offs)
    return _grouped(input, weight, offs)


DECOMPOSITIONS = {
    "transformers.grouped_mm_fallback.default": grouped_mm_fallback,
    "transformers.grouped_mm_fallback_backward.default": grouped_mm_fallback_backward,
    "aten._grouped_mm.default": grouped_mm,
}
"""By overload name, for `aten_decompositions.OWN`."""
