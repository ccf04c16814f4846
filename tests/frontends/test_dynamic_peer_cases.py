"""Cases in the manner of PyTorch's dynamic-shape suites, run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` on the
CPU and compared with eager: Inductor's `CommonTemplate` run shape-generic
(`test/inductor/test_torchinductor_dynamic_shapes.py`) and Dynamo's
`test/dynamo/test_dynamic_shapes.py` and `test_unspec.py`.

A dynamic-shape test is only one if the compiled function sees more than one
size, so each row is a function and a factory of its arguments *for a size
n*: the function is compiled once and called for each of the row's sizes
(5 then 9 unless the row says otherwise), with the row's dims marked
(`mark_dynamic`, or `maybe_mark_dynamic`) before each call; each call's
output, and its arguments afterwards, must match an eager call's on
arguments made afresh from the same seed (integers and booleans exactly,
float32 within torch.testing's defaults, matmuls and attention 1e-4), a
non-empty output's strides too, and an output that is a view of an argument
in eager must be the same view here. After the last call the number of
graphs Dynamo compiled (`unique_graphs`) must be the row's: one for a dim
marked dynamic, two where Dynamo first compiles a graph static and
recompiles it shape-generic on a new size (automatic dynamic, and an
unspecialised int or float argument), one per size with `dynamic=False`,
one more for a 0/1 size, which Dynamo specialises. Where torch's own
tracing specialises a marked size (`math.log(n)`, `linspace`, a ragged
`split`, `take_along_dim`, `max_pool1d`: `mark_dynamic` raises there) the
row uses `maybe_mark_dynamic` and expects one graph per size.
`test_aot_eager_agrees` runs every row under torch's own `aot_eager`
backend too, so each expected count (and each output) is torch's, not this
port's guess; fxdsl's counts equal it on every row: its backend adds no
guard of its own. (It is marked slow for the rows with a marked dim's one
graph that fxdsl passes.)

fxdsl's graph dialect has static shapes: a shape-generic graph Dynamo hands
it is compiled once per concrete input signature at run time
(`torch_compile._Specialising`, logging "specialised a dynamic graph"),
which Dynamo does not see. `test_matches_eager` counts those too: never
more than one per distinct size of each graph (a third call back at the
first size must reuse it). A graph whose only symbolic input is a float
(an unspecialised float argument) is not shape-generic and compiles once.
No row's graph goes to torch whole. In the rows that size a tensor from
`.item()` (`capture_scalar_outputs`) or from `nonzero`/a boolean mask
(`capture_dynamic_output_shape_ops`), the nodes making or reading such
sizes run in torch and the rest compiles (`torch_nodes.data_dependent`).

Ported (bodies restated, shapes small): marking (`mark_dynamic`,
`maybe_mark_dynamic`, `dynamic=True/False`), recompilation on a new shape
and 0/1 specialisation; unspecialised int and float arguments; Python
scalars derived from sizes (`x.size(0) // 2`, `% `, `math.sqrt`, `numel`)
used in math and returned; `torch._check` hints; views and reshapes with
symbolic sizes (view, reshape, flatten, unflatten, unsqueeze, slices and
steps, select); factories sized from inputs (`new_empty/new_zeros/new_ones`,
`arange`, `linspace`, `full`, `eye`, `tril` masks); `narrow/split/chunk/unbind/
tensor_split` on dynamic dims; `cat`/`stack` of dynamic pieces; `expand`,
`repeat`, `repeat_interleave`; reductions, scans, sort and topk over
dynamic dims; softmax and the norms with a dynamic batch and sequence;
`scaled_dot_product_attention` with a dynamic T; matmuls with a dynamic
M/K/batch; `index_select`, `gather`, `scatter_add`, `index_add` and
embedding with a dynamic index length or token count; `pad` with
size-dependent padding; `interpolate`, convolution and pooling on a dynamic
spatial size; small modules (Linear, MLP, attention, a transformer encoder
layer) with a dynamic batch and sequence; input mutation through a dynamic
slice and `setitem`, and of batch norm's running stats; outputs that are
views of a dynamic input; a `topk`/`kthvalue` whose k is a size; losses,
`pixel_shuffle`, `unfold`, `searchsorted`, `cdist`, `grid_sample` and
`embedding_bag` on dynamic sizes; a graph break between shape-generic
graphs; sizes from `.item()` and from `nonzero`/boolean masks (unbacked
SymInts).

Not ported, and why:
- What Inductor or Dynamo check of their own machinery: generated code
  (`run_and_get_code`, FileCheck of kernels and of `s0` in the wrapper),
  guard strings and guard managers, `ShapeEnv` internals (symbol ranges,
  replacements, `evaluate_expr`, sympy printing), `CompileCounter` frame
  counts of Dynamo's bytecode transforms, export's `dynamic_shapes`
  constraints and `ConstraintViolationError` messages.
- GPU-only tests, autotuning, cudagraphs, AOTInductor and the C++ wrapper.
- Random ops (their numbers differ from torch's by design), backward passes
  (AOTAutograd's joint graph is tested elsewhere), complex and quantized
  dtypes, custom ops through `torch.library`.
- Unbacked-SymInt tests beyond the four here (`tolist` splits, custom ops
  on unbacked sizes, `_check_is_size` corner cases): they test Dynamo's
  tracing; fxdsl runs their nodes in torch.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need, torch_before

torch = need("torch")

import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

from fxdsl.testing.peer_cases import (  # noqa: E402
    WHOLE_GRAPH_IN_TORCH,
    Case,
    assert_same,
    backend_log,
    fresh,
)

pytestmark = [
    pytest.mark.usefixtures("fresh_dynamo"),
    # what torch warns about on a CPU-only build, as expected
    pytest.mark.filterwarnings("ignore:TF32 acceleration:UserWarning"),
]

SEED = 31
OPTIONS = {"min_block_size": 1}
MM = {"atol": 1e-4, "rtol": 1e-4}  # matmuls, attention: a different sum order
SPECIALISED = "specialised a dynamic graph"
D0 = {0: (0,)}  # the first argument's dim 0 marked dynamic
D1 = {0: (1,)}
D01 = {0: (0, 1)}


@dataclasses.dataclass(frozen=True)
class Sized:
    """A row: `fn` compiled once and called on `make(n)`'s arguments for each
    n of `sizes`, compared each time with eager; `graphs`: how many graphs
    Dynamo compiles over all the calls (torch's `aot_eager` count)."""

    fn: Callable[..., Any]
    make: Callable[[int], tuple[Any, ...]]
    sizes: tuple[int, ...]
    dynamic: dict[int, tuple[int, ...]]
    maybe: bool  # `maybe_mark_dynamic` rather than `mark_dynamic`
    graphs: int
    tol: dict[str, float]
    dynamo: dict[str, Any]  # torch._dynamo.config patches
    compile: dict[str, Any]  # torch.compile's keywords (`dynamic=`)

    def at(self, n: int) -> Case:
        """The harness's row for size `n`."""
        return Case(self.fn, lambda: self.make(n), self.tol, self.dynamo, self.dynamic)


def row(
    name: str,
    fn: Callable[..., Any],
    make: Callable[[int], tuple[Any, ...]],
    dynamic: dict[int, tuple[int, ...]] | None = None,
    *,
    sizes: tuple[int, ...] = (5, 9),
    maybe: bool = False,
    graphs: int = 1,
    tol: dict[str, float] | None = None,
    dynamo: dict[str, Any] | None = None,
    compile: dict[str, Any] | None = None,
    xfail: str | None = None,
    slow: bool = False,
) -> Any:
    """A `Sized` row as a `pytest.param` whose id is `name`; `xfail`: the
    reason of a strict xfail mark (fxdsl's: `aot_eager` passes every row)."""
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    marks += [pytest.mark.slow] if slow else []
    sized = Sized(
        fn, make, sizes, dynamic or {}, maybe, graphs, tol or {}, dynamo or {},
        compile or {},
    )  # fmt: skip
    return pytest.param(sized, id=name, marks=marks)


def rn(*shape: int) -> Any:
    return torch.randn(shape)


def ri(high: int, *shape: int) -> Any:
    return torch.randint(0, high, shape)


def built(make: Callable[[], Any]) -> Any:
    """A module made from a fixed seed, in eval mode, without gradients:
    eager and the compiled function call this same one."""
    torch.manual_seed(7)
    with torch.no_grad():
        module = make().eval()
    return module.requires_grad_(False)


# ==========================================================================
# marking, recompilation, 0/1 specialisation (test_dynamic_shapes.py)


def _branch_on_size(x: Any) -> Any:
    # a guard on the size, not a specialisation: both sides stay generic
    return x * 2 if x.size(0) > 6 else x - 1


def _break_between(x: Any) -> Any:
    y = x.cumsum(0) * 2
    torch._dynamo.graph_break()
    return y[: y.size(0) - 1].sum(0)


MARKING = [
    row("mark_dynamic_pointwise", lambda x: x * 2 + 1, lambda n: (rn(n, 4),), D0),
    row("mark_dynamic_both_dims", lambda x: x.sin() + x.cos(), lambda n: (rn(n, n + 1),), D01),
    row("mark_dynamic_second_dim_only", lambda x: x.exp() - x, lambda n: (rn(3, n),), D1),
    row("mark_dynamic_back_to_first_size", lambda x: torch.relu(x) * x.size(0), lambda n: (rn(n, 4),), D0, sizes=(5, 9, 5)),
    row("maybe_mark_dynamic_pointwise", lambda x: x.tanh() * 3, lambda n: (rn(n, 4),), D0, maybe=True),
    row("maybe_mark_dynamic_then_size_1", lambda x: x.sum(0) + 1, lambda n: (rn(n, 4),), D0, maybe=True, sizes=(5, 9, 1), graphs=2),
    row("two_inputs_marked_broadcast", lambda x, y: x * y, lambda n: (rn(n, 4), rn(n, 1)), {0: (0,), 1: (0,)}),
    row("two_inputs_distinct_dynamic_dims", lambda x, y: x.sum(0) + y.sum(0), lambda n: (rn(n, 4), rn(n + 2, 4)), {0: (0,), 1: (0,)}),
    row("automatic_dynamic_recompiles_once", lambda x: x * x.size(0), lambda n: (rn(n, 3),), sizes=(4, 6, 9), graphs=2),
    row("automatic_dynamic_two_dims", lambda x: x.sum(1) + x.mean(0).sum(), lambda n: (rn(n, n + 1),), sizes=(4, 6, 9), graphs=2),
    row("compile_dynamic_true_no_recompile", lambda x: x.cumsum(0) * 2, lambda n: (rn(n, 3),), sizes=(4, 6, 9), compile={"dynamic": True}),
    row("compile_dynamic_false_one_per_size", lambda x: x.cumsum(0) * 2, lambda n: (rn(n, 3),), sizes=(4, 6, 9), graphs=3, compile={"dynamic": False}),
    row("automatic_dynamic_from_size_1", lambda x: x + x.sum(0), lambda n: (rn(n, 3),), sizes=(1, 5, 9), graphs=2),
    row("automatic_dynamic_then_size_1", lambda x: x + x.sum(0), lambda n: (rn(n, 3),), sizes=(5, 9, 1), graphs=3),
    row("automatic_dynamic_then_size_0", lambda x: x * 2 + 1, lambda n: (rn(n, 3),), sizes=(5, 9, 0), graphs=3),
    row("compile_dynamic_true_size_1_specialised", lambda x: x + x.sum(0), lambda n: (rn(n, 3),), sizes=(5, 9, 1), graphs=2, compile={"dynamic": True}),
    row("branch_on_size_guard", _branch_on_size, lambda n: (rn(n, 3),), D0, sizes=(5, 9, 7), graphs=2),
    row("branch_on_size_same_side", _branch_on_size, lambda n: (rn(n, 3),), D0, sizes=(7, 9, 12)),
    row("graph_break_between_dynamic_graphs", _break_between, lambda n: (rn(n, 3),), D0, graphs=2),
    row("assume_static_by_default_off", lambda x: x.flip(0) * x.size(0), lambda n: (rn(n, 3),), sizes=(4, 6, 9), dynamo={"assume_static_by_default": False}),
    row("automatic_dynamic_off_recompiles_each", lambda x: x.flip(0) + 1, lambda n: (rn(n, 3),), sizes=(4, 6, 9), graphs=3, dynamo={"automatic_dynamic_shapes": False}),
]  # fmt: skip


# ==========================================================================
# unspecialised ints and floats, scalars from sizes (test_unspec.py)


def _arg(value: Any) -> Callable[[int], tuple[Any, ...]]:
    return lambda n: (rn(4, 3), value(n))


def _sym_scalars(x: Any) -> Any:
    n = x.size(0)
    return x * (1.0 / n) + n // 2 - n % 3 + (-n)


UNSPEC = [
    row("int_arg_multiplies", lambda x, k: x * k, _arg(lambda n: n), sizes=(2, 3, 4), graphs=2),
    row("int_arg_in_pow", lambda x, k: x ** (k % 3), _arg(lambda n: n), sizes=(2, 3, 4), graphs=2),
    row("int_arg_as_factory_size", lambda x, k: x.sum() + torch.ones(k).cumsum(0), _arg(lambda n: n), sizes=(3, 5, 8), graphs=2),
    row("int_arg_as_view_size", lambda x, k: x.reshape(-1)[: k * 2].view(k, 2), _arg(lambda n: n), sizes=(2, 4, 6), graphs=2),
    row("int_arg_as_arange_end", lambda x, k: torch.arange(k) * x.sum(), _arg(lambda n: n), sizes=(3, 5, 8), graphs=2),
    row("float_arg_multiplies", lambda x, s: x * s + s, _arg(lambda n: n / 4), sizes=(2, 3, 5), graphs=2),
    row("float_arg_in_clamp", lambda x, s: x.clamp(-s, s), _arg(lambda n: n / 8), sizes=(2, 3, 5), graphs=3),
    row("float_arg_math_sqrt", lambda x, s: x * math.sqrt(s), _arg(lambda n: n + 1.0), sizes=(2, 3, 5), graphs=2),
    row("int_and_float_args", lambda x, k, s: x * k + s, lambda n: (rn(4, 3), n, n / 3), sizes=(2, 3, 5), graphs=2),
    row("scalar_tensor_arg", lambda x, s: x * s, lambda n: (rn(n, 3), torch.tensor(n / 2)), D0),
    row("size_times_tensor", lambda x: x * x.size(0), lambda n: (rn(n, 3),), D0),
    row("size_reciprocal", lambda x: x / (x.shape[0] - 1), lambda n: (rn(n, 3),), D0),
    row("size_floordiv_mod_neg", _sym_scalars, lambda n: (rn(n, 3),), D0),
    row("sqrt_of_size_scale", lambda x: x / math.sqrt(x.size(-1)), lambda n: (rn(3, n),), D1),
    row("numel_mean", lambda x: x.sum() / x.numel(), lambda n: (rn(n, 3),), D0),
    row("size_product_scale", lambda x: x * (x.size(0) * x.size(1)), lambda n: (rn(n, n + 2),), D01),
    row("size_returned_as_int", lambda x: (x + 1, x.size(0), x.size(0) // 2), lambda n: (rn(n, 3),), D0),
    row("shape_returned", lambda x: (x * 2, tuple(x.shape)), lambda n: (rn(n, 3),), D0),
    row("tensor_of_size", lambda x: x.sum(0) + torch.tensor(x.size(0)), lambda n: (rn(n, 3),), D0),
    row("full_of_size_value", lambda x: torch.full((3,), x.size(0)) * x[0], lambda n: (rn(n, 3),), D0),
    row("max_of_sizes", lambda x, y: x.sum() * max(x.size(0), y.size(0)), lambda n: (rn(n, 2), rn(n + 3, 2)), {0: (0,), 1: (0,)}),
    row("size_in_log", lambda x: x - math.log(x.size(0)), lambda n: (rn(n, 3),), D0, maybe=True, graphs=2),
]  # fmt: skip


# ==========================================================================
# torch._check hints


def _check_equal_then_add(x: Any, y: Any) -> Any:
    torch._check(x.size(0) == y.size(0))
    return x + y


def _check_positive_then_narrow(x: Any) -> Any:
    torch._check(x.size(0) > 2)
    return x.narrow(0, 1, x.size(0) - 2)


def _check_even_then_view(x: Any) -> Any:
    torch._check(x.size(0) % 2 == 0)
    return x.view(x.size(0) // 2, 2, -1).sum(1)


CHECKS = [
    row("check_equal_sizes_unify", _check_equal_then_add, lambda n: (rn(n, 3), rn(n, 3)), {0: (0,), 1: (0,)}),
    row("check_size_lower_bound_narrow", _check_positive_then_narrow, lambda n: (rn(n, 3),), D0),
    row("check_even_size_view", _check_even_then_view, lambda n: (rn(2 * n, 3),), D0),
]  # fmt: skip


# ==========================================================================
# views and reshapes with symbolic sizes


def _even(*tail: int) -> Callable[[int], tuple[Any, ...]]:
    return lambda n: (rn(2 * n, *tail),)


VIEWS = [
    row("view_flat", lambda x: x.view(-1) * 2, lambda n: (rn(n, 4),), D0),
    row("view_split_static_dim", lambda x: x.view(x.size(0), 2, 2).sum(-1), lambda n: (rn(n, 4),), D0),
    row("view_merge_dynamic_dims", lambda x: x.view(x.size(0) * x.size(1)).cumsum(0), lambda n: (rn(n, n + 1),), D01),
    row("view_half_size", lambda x: x.view(x.size(0) // 2, -1) + 1, _even(3), D0),
    row("reshape_sized", lambda x: x.reshape(x.size(0) * 2, -1).relu(), lambda n: (rn(n, 4),), D0),
    row("flatten_start_1", lambda x: x.flatten(1) - 1, lambda n: (rn(2, n, 3),), {0: (1,)}),
    row("unflatten_dynamic_dim", lambda x: x.unflatten(0, (2, -1)).sum(0), _even(3), D0),
    row("unsqueeze_then_add", lambda x: x.unsqueeze(1) + x.unsqueeze(0), lambda n: (rn(n),), D0),
    row("transpose_contiguous", lambda x: x.transpose(0, 1).contiguous() + 0, lambda n: (rn(n, 3),), D0),
    row("permute_3d", lambda x: x.permute(2, 0, 1) * 1, lambda n: (rn(n, 2, n + 1),), {0: (0, 2)}),
    row("slice_half", lambda x: x[: x.size(0) // 2] * 2, lambda n: (rn(n, 3),), D0),
    row("slice_drop_ends", lambda x: x[1:-1] + x[1:-1].sum(0), lambda n: (rn(n, 3),), D0),
    row("slice_step_2", lambda x: x[::2] - 1, lambda n: (rn(n, 3),), D0),
    row("slice_second_dim_dynamic", lambda x: x[:, 1 : x.size(1) - 1] * 2, lambda n: (rn(3, n),), D1),
    row("select_last_row", lambda x: x[x.size(0) - 1] + x[0], lambda n: (rn(n, 3),), D0),
    row("view_returned_as_view", lambda x: x.view(-1), lambda n: (rn(n, 3),), D0),
    row("as_strided_rows", lambda x: x.as_strided((x.size(0) - 1, 2), (3, 1)) * 1, lambda n: (rn(n, 3),), D0),
    row("unfold_dynamic_length", lambda x: x.unfold(0, 3, 2).sum(-1), lambda n: (rn(n, 2),), D0),
]  # fmt: skip


# ==========================================================================
# factories sized from the inputs


def _causal(x: Any) -> Any:
    t = x.size(-1)
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    return x.masked_fill(~mask, 0.0)


def _arange_mask(x: Any) -> Any:
    pos = torch.arange(x.size(1))
    return torch.where(pos[None, :] < pos[:, None], x, -x)


FACTORIES = [
    row("new_zeros_shape", lambda x: x.new_zeros(x.shape) + x, lambda n: (rn(n, 3),), D0),
    row("new_zeros_sized_row", lambda x: x.new_zeros(x.size(0), 2).sum(1) + x[:, 0], lambda n: (rn(n, 3),), D0),
    row("new_empty_filled", lambda x: x.new_empty(x.size(0), 3).fill_(2.0) * x, lambda n: (rn(n, 3),), D0),
    row("new_ones_half", lambda x: x.new_ones(x.size(0) // 2) * 3, _even(3), D0),
    row("arange_size", lambda x: torch.arange(x.size(0)), lambda n: (rn(n, 3),), D0),
    row("arange_times_input", lambda x: torch.arange(x.size(0))[:, None] * x, lambda n: (rn(n, 3),), D0),
    row("arange_step_2", lambda x: torch.arange(0, x.size(0), 2) + x.size(0), lambda n: (rn(n, 3),), D0),
    row("arange_float_over_size", lambda x: torch.arange(x.size(0), dtype=torch.float32) / x.size(0), lambda n: (rn(n),), D0),
    row("linspace_sized", lambda x: torch.linspace(0, 1, x.size(0)) * x, lambda n: (rn(n),), D0, maybe=True, graphs=2),
    row("eye_sized", lambda x: torch.eye(x.size(0)) @ x, lambda n: (rn(n, 3),), D0, tol=MM),
    row("tril_mask_causal", _causal, lambda n: (rn(2, n, n),), {0: (1, 2)}),
    row("arange_comparison_mask", _arange_mask, lambda n: (rn(2, n, n),), {0: (1, 2)}),
]  # fmt: skip


# ==========================================================================
# narrow, split, chunk, cat, expand, repeat on dynamic dims


def _split_halves(x: Any) -> Any:
    a, b = torch.split(x, [2, x.size(0) - 2])
    return a.sum(0) + b.sum(0)


def _cat_halves_swapped(x: Any) -> Any:
    h = x.size(0) // 2
    return torch.cat([x[h:], x[:h]])


PIECES = [
    row("narrow_middle", lambda x: x.narrow(0, 1, x.size(0) - 2) * 2, lambda n: (rn(n, 3),), D0),
    row("narrow_half_columns", lambda x: x.narrow(1, 0, x.size(1) // 2).relu(), lambda n: (rn(3, 2 * n),), D1),
    row("split_by_2_ragged", lambda x: [p.sum(0) + x.size(0) for p in torch.split(x, 2)], lambda n: (rn(n, 3),), D0, maybe=True, graphs=2),
    row("split_half_size", lambda x: [p * 2 for p in x.split(x.size(0) // 2)], _even(3), D0),
    row("split_sizes_symbolic", _split_halves, lambda n: (rn(n, 3),), D0),
    row("chunk_2", lambda x: [c * 2 for c in x.chunk(2)], _even(3), D0),
    row("unbind_static_dim", lambda x: sum(torch.unbind(x, 1)), lambda n: (rn(n, 3),), D0),
    row("tensor_split_indices", lambda x: x.tensor_split([1, 3])[2] + 1, lambda n: (rn(n, 3),), D0),
    row("cat_two_dynamic", lambda x, y: torch.cat([x, y]) * 2, lambda n: (rn(n, 3), rn(n + 1, 3)), {0: (0,), 1: (0,)}),
    row("cat_along_static_dim", lambda x: torch.cat([x, x * 2, x.exp()], 1), lambda n: (rn(n, 3),), D0),
    row("cat_halves_swapped", _cat_halves_swapped, _even(3), D0),
    row("cat_with_static_piece", lambda x: torch.cat([x, torch.ones(2, 3)]).cumsum(0), lambda n: (rn(n, 3),), D0),
    row("stack_dynamic", lambda x, y: torch.stack([x, y], 1).sum(-1), lambda n: (rn(n, 3), rn(n, 3)), {0: (0,), 1: (0,)}),
    row("expand_sized", lambda x: x.expand(x.size(0), 4) * 1, lambda n: (rn(n, 1),), D0),
    row("expand_to_dynamic_width", lambda x, y: x.expand(-1, y.size(0)) + y, lambda n: (rn(3, 1), rn(n)), {1: (0,)}),
    row("expand_as_then_sum", lambda x, y: x.expand_as(y).sum(0) + y.sum(0), lambda n: (rn(1, 3), rn(n, 3)), {1: (0,)}),
    row("repeat_rows", lambda x: x.repeat(2, 1) - 1, lambda n: (rn(n, 3),), D0),
    row("repeat_sized", lambda x: x.repeat(1, x.size(0) // 2), _even(2), D0),
    row("repeat_interleave_2", lambda x: x.repeat_interleave(2, dim=0) * 1, lambda n: (rn(n, 3),), D0),
    row("flip_roll_dynamic", lambda x: x.flip(0) + x.roll(1, 0), lambda n: (rn(n, 3),), D0),
]  # fmt: skip


# ==========================================================================
# reductions and scans over dynamic dims


REDUCE = [
    row("sum_dynamic_dim", lambda x: x.sum(0), lambda n: (rn(n, 3),), D0),
    row("sum_inner_dynamic_keepdim", lambda x: x.sum(-1, keepdim=True) * x, lambda n: (rn(3, n),), D1),
    row("mean_both_dynamic", lambda x: x.mean() + x.mean(0).sum(), lambda n: (rn(n, n + 1),), D01),
    row("amax_amin_dynamic", lambda x: (x.amax(0), x.amin(1)), lambda n: (rn(n, 4),), D0),
    row("argmax_over_dynamic", lambda x: x.argmax(0), lambda n: (rn(n, 4),), D0),
    row("max_with_indices", lambda x: torch.max(x, 1), lambda n: (rn(3, n),), D1),
    row("var_std_dynamic", lambda x: (x.var(0), x.std(0, unbiased=False)), lambda n: (rn(n, 3),), D0),
    row("logsumexp_dynamic", lambda x: torch.logsumexp(x, 0), lambda n: (rn(n, 3),), D0),
    row("any_all_dynamic", lambda x: ((x > 0).any(0), (x > -3).all(0)), lambda n: (rn(n, 3),), D0),
    row("cumsum_dynamic", lambda x: x.cumsum(0), lambda n: (rn(n, 3),), D0),
    row("cumprod_dynamic_inner", lambda x: (x * 0.1 + 1).cumprod(1), lambda n: (rn(3, n),), D1),
    row("sort_dynamic", lambda x: torch.sort(x, 0), lambda n: (rn(n, 3),), D0),
    row("topk_static_k", lambda x: torch.topk(x, 3, dim=0), lambda n: (rn(n, 3),), D0),
]  # fmt: skip


# ==========================================================================
# softmax and the norms with a dynamic batch and sequence


def _bt(n: int) -> tuple[Any, ...]:
    return (rn(n - 2, n, 8),)


BT = {0: (0, 1)}

NORMS = [
    row("softmax_dynamic_seq", lambda x: torch.softmax(x, -1), lambda n: (rn(2, n, n),), {0: (1, 2)}),
    row("log_softmax_dynamic_batch", lambda x: F.log_softmax(x, 1), lambda n: (rn(n, 6),), D0),
    row("softmax_over_dynamic_dim", lambda x: torch.softmax(x, 0), lambda n: (rn(n, 3),), D0),
    row("layer_norm_dynamic_batch_seq", lambda x: F.layer_norm(x, (8,)), _bt, BT),
    row("layer_norm_affine", lambda x, w, b: F.layer_norm(x, (8,), w, b), lambda n: (*_bt(n), rn(8), rn(8)), BT),
    row("layer_norm_dynamic_hidden", lambda x: F.layer_norm(x, x.shape[-1:]), lambda n: (rn(3, n),), D1),
    row("rms_norm_dynamic", lambda x: F.rms_norm(x, (8,), eps=1e-6), _bt, BT),
    row("group_norm_dynamic_batch", lambda x: F.group_norm(x, 2, eps=1e-5), lambda n: (rn(n, 4, 3),), D0),
    row("batch_norm_eval_dynamic_batch", lambda x, m, v: F.batch_norm(x, m, v, training=False), lambda n: (rn(n, 4), rn(4), rn(4).abs() + 0.5), D0),
]  # fmt: skip


# ==========================================================================
# attention and matmuls with dynamic sizes


def _qkv(n: int) -> tuple[Any, ...]:
    return (rn(2, 2, n, 8), rn(2, 2, n, 8), rn(2, 2, n, 8))


QKV = {0: (2,), 1: (2,), 2: (2,)}


def _hand_attention(q: Any, k: Any, v: Any) -> Any:
    t = q.size(-2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    return torch.softmax(scores.masked_fill(~causal, float("-inf")), -1) @ v


def _sdpa_mask(q: Any, k: Any, v: Any) -> Any:
    t = q.size(-2)
    mask = torch.arange(t)[None, :] <= torch.arange(t)[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


MATMUL = [
    row("sdpa_dynamic_t", F.scaled_dot_product_attention, _qkv, QKV, tol=MM),
    row("sdpa_causal_dynamic_t", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), _qkv, QKV, tol=MM),
    row("sdpa_mask_from_arange", _sdpa_mask, _qkv, QKV, tol=MM),
    row("sdpa_dynamic_kv_length", F.scaled_dot_product_attention, lambda n: (rn(1, 2, 3, 8), rn(1, 2, n, 8), rn(1, 2, n, 8)), {1: (2,), 2: (2,)}, tol=MM),
    row("hand_attention_causal", _hand_attention, _qkv, QKV, tol=MM),
    row("mm_dynamic_m", torch.mm, lambda n: (rn(n, 6), rn(6, 4)), D0, tol=MM),
    row("mm_dynamic_k", torch.mm, lambda n: (rn(3, n), rn(n, 4)), {0: (1,), 1: (0,)}, tol=MM),
    row("linear_dynamic_batch", F.linear, lambda n: (rn(n, 6), rn(4, 6), rn(4)), D0, tol=MM),
    row("linear_dynamic_batch_seq", F.linear, lambda n: (rn(n - 2, n, 6), rn(4, 6)), BT, tol=MM),
    row("bmm_dynamic_batch", torch.bmm, lambda n: (rn(n, 3, 4), rn(n, 4, 2)), {0: (0,), 1: (0,)}, tol=MM),
    row("matmul_3d_2d_dynamic_m", torch.matmul, lambda n: (rn(2, n, 5), rn(5, 3)), {0: (1,)}, tol=MM),
    row("gram_matrix", lambda x: x.t() @ x / x.size(0), lambda n: (rn(n, 3),), D0, tol=MM),
    row("einsum_dynamic", lambda x, y: torch.einsum("bij,bjk->bik", x, y), lambda n: (rn(2, n, 4), rn(2, 4, n)), {0: (1,), 1: (2,)}, tol=MM),
]  # fmt: skip


# ==========================================================================
# indexing with dynamic index lengths, embedding


def _idx(rows: int) -> Callable[[int], tuple[Any, ...]]:
    return lambda n: (rn(rows, 4), ri(rows, n))


INDEXING = [
    row("index_select_dynamic_index", lambda x, i: torch.index_select(x, 0, i), _idx(7), {1: (0,)}),
    row("advanced_index_dynamic", lambda x, i: x[i] + 1, _idx(7), {1: (0,)}),
    row("gather_dynamic_index", lambda x, i: torch.gather(x, 1, i), lambda n: (rn(3, 6), ri(6, 3, n)), {1: (1,)}),
    row("gather_dynamic_rows", lambda x, i: x.gather(0, i), lambda n: (rn(n, 4), ri(n, n, 4)), {0: (0,), 1: (0,)}),
    row("take_along_dim_argsort", lambda x: torch.take_along_dim(x, x.argsort(0), 0), lambda n: (rn(n, 3),), D0, maybe=True, graphs=2),
    row("scatter_add_dynamic_index", lambda x, i, s: x.scatter_add(0, i, s), lambda n: (rn(5, 3), ri(5, n, 3), rn(n, 3)), {1: (0,), 2: (0,)}),
    row("index_add_dynamic_index", lambda x, i, s: x.index_add(0, i, s), lambda n: (rn(5, 3), ri(5, n), rn(n, 3)), {1: (0,), 2: (0,)}),
    row("index_put_dynamic_index", lambda x, i, s: x.index_put((i,), s, accumulate=True), lambda n: (rn(5, 3), ri(5, n), rn(n, 3)), {1: (0,), 2: (0,)}),
    row("embedding_dynamic_tokens", lambda i, w: F.embedding(i, w), lambda n: (ri(10, n), rn(10, 4)), D0),
    row("embedding_dynamic_batch_seq", lambda i, w: F.embedding(i, w), lambda n: (ri(10, n - 2, n), rn(10, 4)), BT),
    row("embedding_plus_positions", lambda i, w, p: F.embedding(i, w) + p[: i.size(1)], lambda n: (ri(10, 2, n), rn(10, 4), rn(16, 4)), D1),
    row("one_hot_dynamic_count", lambda i: F.one_hot(i, 6), lambda n: (ri(6, n),), D0),
    row("where_dynamic_broadcast", lambda c, x: torch.where(c, x, -x), lambda n: (rn(n, 1) > 0, rn(n, 3)), {0: (0,), 1: (0,)}),
]  # fmt: skip


# ==========================================================================
# pad, interpolate, convolution and pooling on dynamic sizes


def _pad_to_multiple(x: Any) -> Any:
    # size-dependent padding: round the last dim up to a multiple of 8
    return F.pad(x, (0, (8 - x.size(-1) % 8) % 8))


RESAMPLE = [
    row("pad_to_multiple_of_8", _pad_to_multiple, lambda n: (rn(2, n),), D1),
    row("pad_by_half_size", lambda x: F.pad(x, (x.size(-1) // 2, 1)), lambda n: (rn(2, n),), D1),
    row("pad_reflect_dynamic_length", lambda x: F.pad(x, (2, 2), mode="reflect"), lambda n: (rn(1, 2, n),), {0: (2,)}),
    row("pad_replicate_dynamic_hw", lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate"), lambda n: (rn(1, 2, n, n),), {0: (2, 3)}),
    row("interpolate_nearest_x2", lambda x: F.interpolate(x, scale_factor=2.0, mode="nearest"), lambda n: (rn(1, 2, n, n),), {0: (2, 3)}),
    row("interpolate_bilinear_x2", lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear"), lambda n: (rn(1, 2, n, 4),), {0: (2,)}),
    row("interpolate_linear_size_from_input", lambda x: F.interpolate(x, size=x.size(-1) * 2, mode="linear"), lambda n: (rn(1, 2, n),), {0: (2,)}),
    row("interpolate_to_fixed_size", lambda x: F.interpolate(x, size=(6, 6), mode="bilinear", align_corners=True), lambda n: (rn(1, 2, n, n),), {0: (2, 3)}),
    row("adaptive_avg_pool_dynamic_input", lambda x: F.adaptive_avg_pool2d(x, 2), lambda n: (rn(1, 2, n, n),), {0: (2, 3)}, sizes=(4, 8)),
    row("conv1d_dynamic_length", lambda x, w: F.conv1d(x, w, padding=1), lambda n: (rn(2, 3, n), rn(4, 3, 3)), {0: (2,)}, tol=MM),
    row("conv2d_dynamic_batch", lambda x, w: F.conv2d(x, w), lambda n: (rn(n - 3, 2, 5, 5), rn(3, 2, 3, 3)), D0, tol=MM),
    row("max_pool1d_dynamic_length", lambda x: F.max_pool1d(x, 2), lambda n: (rn(2, 3, n),), {0: (2,)}, maybe=True, graphs=2),
]  # fmt: skip


# ==========================================================================
# small modules with a dynamic batch and sequence

LINEAR = built(lambda: nn.Linear(8, 5))
MLP = built(lambda: nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8)))
EMBED = built(lambda: nn.Embedding(12, 8))
MHA = built(lambda: nn.MultiheadAttention(8, 2, batch_first=True))
ENCODER = built(lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True))  # fmt: skip
CONV = built(lambda: nn.Sequential(nn.Conv1d(3, 4, 3, padding=1), nn.ReLU()))


def _mha(x: Any) -> Any:
    return MHA(x, x, x, need_weights=False)[0]


def _encoder_causal(x: Any) -> Any:
    t = x.size(1)
    mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
    return ENCODER(x, src_mask=mask)


def _embed_positions(i: Any) -> Any:
    pos = torch.arange(i.size(1))
    return EMBED(i) + EMBED(pos)[None]


MODULES = [
    row("module_linear_dynamic_batch", LINEAR, lambda n: (rn(n, 8),), D0, tol=MM),
    row("module_mlp_dynamic_batch_seq", MLP, _bt, BT, tol=MM),
    row("module_embedding_with_positions", _embed_positions, lambda n: (ri(12, 2, n),), D1),
    row("module_mha_dynamic_seq", _mha, lambda n: (rn(2, n, 8),), {0: (1,)}, tol=MM),
    row("module_encoder_layer_dynamic_seq", ENCODER, lambda n: (rn(2, n, 8),), {0: (1,)}, tol=MM, slow=True),
    row("module_encoder_layer_causal", _encoder_causal, lambda n: (rn(2, n, 8),), {0: (1,)}, tol=MM, slow=True),
    row("module_conv1d_dynamic_length", CONV, lambda n: (rn(2, 3, n),), {0: (2,)}, tol=MM),
]  # fmt: skip


# ==========================================================================
# mutation through dynamic views, dtypes, unbacked sizes


def _scale_first_half(x: Any) -> Any:
    x[: x.size(0) // 2].mul_(2)
    return x.sum(0)


def _ones_of_item(n: Any) -> Any:
    k = n.item()
    torch._check(k >= 0)
    return torch.ones(k).cumsum(0)


CAPTURE = {"capture_scalar_outputs": True}

MISC = [
    row("inplace_add_dynamic_input", lambda x: x.add_(1), lambda n: (rn(n, 3),), D0),
    row("inplace_through_dynamic_slice", _scale_first_half, _even(3), D0),
    row("copy_into_dynamic_slice", lambda x, y: x[1 : y.size(0) + 1].copy_(y), lambda n: (rn(12, 3), rn(n, 3)), {1: (0,)}),
    row("int64_dynamic_math", lambda x: (x * 3 + x.size(0)) // 2, lambda n: (ri(50, n, 3),), D0),
    row("cumsum_int_length_mask", lambda m: m.cumsum(1) * m, lambda n: (ri(2, 2, n),), D1),
    row("item_as_factory_size", _ones_of_item, lambda n: (torch.tensor(n),), dynamo=CAPTURE),
    row("item_sized_slice", lambda x, n: x[: n.item()] * 2, lambda n: (rn(12, 3), torch.tensor(n)), dynamo=CAPTURE),
]  # fmt: skip


def _zero_first_half(x: Any) -> Any:
    x[: x.size(0) // 2] = 0.0
    return x * 2


def _median_row(x: Any) -> Any:
    return torch.kthvalue(x, x.size(0) // 2 + 1, 0)


HARDER = [
    row("setitem_dynamic_slice", _zero_first_half, lambda n: (rn(n, 3),), D0),
    row("batch_norm_train_dynamic_batch", lambda x, m, v: F.batch_norm(x, m, v, training=True), lambda n: (rn(n, 4), rn(4), rn(4).abs() + 0.5), D0),
    row("view_of_second_half_returned", lambda x: x[x.size(0) // 2 :], lambda n: (rn(n, 3),), D0),
    row("reshape_view_returned", lambda x: x.view(x.size(0), 2, -1), lambda n: (rn(n, 4),), D0),
    row("transpose_returned", lambda x: x.transpose(0, 1), lambda n: (rn(n, 3),), D0),
    row("size_float_returned", lambda x: (x + 1, x.size(0) / 2), lambda n: (rn(n, 3),), D0),
    # torch 2.14's Dynamo makes the int dynamic at once: one graph, not two
    row("int_arg_passed_through", lambda x, k: (x * 2, k + 1), _arg(lambda n: n), sizes=(2, 3, 4), graphs=2 if torch_before("2.14") else 1),
    row("topk_half_size", lambda x: torch.topk(x, x.size(0) // 2, dim=0), lambda n: (rn(n, 3),), D0),
    row("kthvalue_median_row", _median_row, lambda n: (rn(n, 3),), D0),
    row("pad_negative_crop", lambda x: F.pad(x, (-1, -1)) * 2, lambda n: (rn(2, n),), D1),
    row("pixel_shuffle_dynamic_hw", lambda x: F.pixel_shuffle(x, 2), lambda n: (rn(1, 4, n, n),), {0: (2, 3)}),
    row("im2col_dynamic_hw", lambda x: F.unfold(x, 2), lambda n: (rn(1, 2, n, n),), {0: (2, 3)}),
    row("cross_entropy_dynamic_batch", lambda x, t: F.cross_entropy(x, t), lambda n: (rn(n, 5), ri(5, n)), {0: (0,), 1: (0,)}),
    row("nll_loss_ignore_index", lambda x, t: F.nll_loss(x.log_softmax(1), t, ignore_index=0), lambda n: (rn(n, 5), ri(5, n)), {0: (0,), 1: (0,)}),
    row("meshgrid_of_aranges", lambda x: torch.meshgrid(torch.arange(x.size(0)), torch.arange(x.size(1)), indexing="ij")[0] * x, lambda n: (rn(n, n + 1),), D01),
    row("searchsorted_dynamic", lambda s, v: torch.searchsorted(s, v), lambda n: (rn(n).sort().values, rn(4)), D0),
    row("cdist_dynamic", lambda x, y: torch.cdist(x, y), lambda n: (rn(n, 3), rn(4, 3)), D0, tol=MM),
    row("grid_sample_dynamic_grid", lambda x, g: F.grid_sample(x, g, align_corners=False), lambda n: (rn(1, 2, 5, 5), torch.rand(1, n, n, 2) * 2 - 1), {1: (1, 2)}),
    row("masked_select_data_dependent", lambda x: x[x > 0] * 2, lambda n: (rn(n, 3),), D0, dynamo={"capture_dynamic_output_shape_ops": True}),
    row("nonzero_data_dependent", lambda x: torch.nonzero(x > 0), lambda n: (rn(n, 3),), D0, dynamo={"capture_dynamic_output_shape_ops": True}),
    row("embedding_bag_dynamic_offsets", lambda i, o, w: F.embedding_bag(i, w, o), lambda n: (ri(10, 2 * n), torch.arange(0, 2 * n, 2), rn(10, 4)), {0: (0,), 1: (0,)}),
]  # fmt: skip


CASES = MARKING + UNSPEC + CHECKS + VIEWS + FACTORIES + PIECES + REDUCE + NORMS + MATMUL + INDEXING + RESAMPLE + MODULES + MISC + HARDER  # fmt: skip


# --------------------------------------------------------------------------
# the comparison


def run_sizes(r: Sized, backend: str) -> tuple[list[str], int]:
    """`r.fn` compiled with `backend` and called once per size of
    `r.sizes`, each call compared with an eager one on arguments made afresh
    from a seed of that size; returns what the backend logged and how many
    graphs Dynamo compiled."""
    options = OPTIONS if backend == "fxdsl" else None
    mark = torch._dynamo.maybe_mark_dynamic if r.maybe else torch._dynamo.mark_dynamic
    counters.clear()
    compiled = torch.compile(r.fn, backend=backend, options=options, **r.compile)
    with backend_log() as log, torch._dynamo.config.patch(**r.dynamo):
        for n in r.sizes:
            c = r.at(n)
            want_args = tuple(fresh(c.make, SEED + n))
            want = c.fn(*want_args)
            args = tuple(fresh(c.make, SEED + n))
            for i, dims in c.dynamic.items():
                mark(args[i], list(dims))
            got = compiled(*args)
            views = (args, want_args)
            assert_same(
                got, want, c.tol, f"size {n}: output", aliases=views, strides=True
            )
            assert_same(args, want_args, c.tol, f"size {n}: argument")
    return log, counters["stats"]["unique_graphs"]


@pytest.mark.parametrize("r", CASES)
def test_matches_eager(r: Sized) -> None:
    log, graphs = run_sizes(r, "fxdsl")
    assert graphs == r.graphs, f"Dynamo compiled {graphs} graphs, torch {r.graphs}"
    # fxdsl compiles each shape-generic graph once per distinct size, and a
    # size seen before reuses its compiled graph
    specialised = sum(SPECIALISED in m for m in log)
    assert specialised <= graphs * len(set(r.sizes)), log
    # sizes read from values (`.item()`, `nonzero`) included
    assert not [m for m in log if WHOLE_GRAPH_IN_TORCH in m], log


def _plain(p: Any) -> bool:
    """A row whose count is a marked dim's one graph, and that fxdsl passes:
    torch's agreement there is slow to check for little news."""
    r: Sized = p.values[0]
    return r.graphs == 1 and not (r.maybe or r.compile or r.dynamo or p.marks)


AOT_EAGER = [
    pytest.param(p.values[0], id=p.id, marks=[pytest.mark.slow] if _plain(p) else [])
    for p in CASES
]


@pytest.mark.parametrize("r", AOT_EAGER)
def test_aot_eager_agrees(r: Sized) -> None:
    """Torch's own backend gives eager's outputs and the row's graph count."""
    _, graphs = run_sizes(r, "aot_eager")
    assert graphs == r.graphs, f"aot_eager compiled {graphs} graphs, the row {r.graphs}"


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
