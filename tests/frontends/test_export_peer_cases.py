"""PyTorch's own torch.export test cases, run through fxdsl's importer.

Mirrors a broad subset of `test/export/test_export.py` (class `TestExport`)
from the PyTorch repository: the same kinds of module (written anew here,
smaller), exported with `fxdsl.from_torch` (non-strict `torch.export`) at
both IR levels (the default graph and `decompose=True`, the core-ATen graph
of `run_decompositions()`), and `program.run` compared with torch eager:
float32 within rtol = atol = 1e-5, integers and bools exactly, shapes and
dtypes equal. A program that writes into its inputs or buffers must leave
them as eager leaves them.

What is ported, by TestExport's themes:

- pytree inputs and outputs: lists, tuples, dicts, nested, `*args` and
  `**kwargs`, kwargs given out of signature order, None outputs, outputs
  that are inputs or views of inputs, one value returned several times,
  placeholder names that collide with parameters and node names;
- non-tensor inputs (int, float, bool, str) specialised into the graph;
- parameters, persistent and non-persistent buffers, plain tensor
  attributes and tensors made in `forward` (lifted constants), shared
  submodules, modules made inside `forward`, `torch.jit.script` functions
  (inlined by export);
- state: buffer writes (`add_`, slice assignment, reassignment of a
  registered buffer), writes into user inputs, in-place ops on
  intermediates, Python attributes changed in `forward`, a batch norm
  exported in training mode;
- `torch.nn` modules: Linear, Conv1d/2d, BatchNorm (eval), LayerNorm,
  GroupNorm, Embedding, LSTM, GRU, MultiheadAttention, TransformerEncoder
  layer, pooling, interpolate, `scaled_dot_product_attention`;
- dtypes: int64/int32/bool/uint8/float64 arithmetic and promotion, 0-d
  tensors, zero-size dims;
- exporting paths: `torch.export.export(..., strict=False)` then
  `from_exported_program`, `ep.run_decompositions()` with the default, an
  empty and a custom decomposition table, re-export of `ep.module()`,
  `preserve_module_call_signature`;
- what fxdsl refuses, which must be a `TorchImportError` (or ValueError /
  NotImplementedError) naming the cause, not a crash inside fxdsl or a
  wrong answer: `torch.cond`, `map`, `while_loop`, data-dependent sizes and
  `.item()` (unbacked symbols), non-tensor outputs, and a program exported
  with `dynamic_shapes`.

Every case passes. What they found, fixed in the importer: at the default
level, a view of an input or buffer read after an in-place write to its
base kept the old values (a silent wrong answer; views are now imported
again from the new value); two in-place ops on one tensor were refused (an
in-place op's result is the tensor itself, not a view); grad-mode and
autocast blocks and torch.vmap were refused (the program is now imported
from `run_decompositions({})`, which inlines them); `tensor + x.item()`
crashed in the pattern recogniser instead of being refused; a Dim.AUTO dim
that torch specialises was refused as dynamic. Documented refusals (a
write into a view of an input at the default level, higher-order ops,
data-dependent sizes) are checked as refusals.

Not ported, and why:

- dynamic shapes and symbolic sizes (`Dim`, `Dim.AUTO/DYNAMIC`, derived
  dims, range constraints, `ShapesCollection`, `AdditionalInputs`, their
  suggested fixes and serialisation): fxdsl's graph dialect has static
  shapes only; one case checks that such a program is refused clearly;
- unbacked-symbol bookkeeping (`_check_is_size`, `sym_constrain_range`,
  runtime asserts on `u0`): `.item()` is refused by design (covered once);
- serialisation (`torch.export.save/load`, serde of specs, C++ runtime) and
  the retraceability / serdes test variants: nothing of it reaches the IR;
- torchbind objects, custom Triton kernels, tensor subclasses
  (`TwoTensor`, parametrisation), draft export and real-tensor propagation:
  torch-side features with no graph-dialect meaning;
- strict-mode (Dynamo) tracer details, `export_for_training`, graph
  signature internals (input/output spec kinds, node naming, `from_node`,
  `torch_fn` and custom metadata, expected-inline graph text) and
  `torch.export.unflatten` module swapping: they test torch's bookkeeping,
  not what a program computes.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from fxdsl.testing.optional import need
from fxdsl.testing.peer_cases import tensor_leaves

torch = need("torch")

import torch.utils._pytree as pytree  # noqa: E402

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import TorchImportError  # noqa: E402

F = torch.nn.functional
nn = torch.nn

LEVELS = ("default", "core")
REFUSALS = (TorchImportError, ValueError, NotImplementedError)

Example = tuple[Any, tuple[Any, ...], dict[str, Any]]
"""A model, its positional and its keyword inputs."""


# --------------------------------------------------------------------------
# Helpers


def _clone(tree: Any) -> Any:
    return pytree.tree_map(
        lambda x: x.clone() if isinstance(x, torch.Tensor) else x, tree
    )


def _assert_same(got: Any, want: Any, what: str) -> None:
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _compare(got: Any, want: Any) -> None:
    want = tensor_leaves(want)
    assert len(got) == len(want), f"{len(got)} outputs, eager has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        _assert_same(g, w, f"output {i}")


def _run_both(
    program: Any, model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Run `program` and eager `model` (a copy of what was exported) on
    copies of the inputs; compare outputs, written inputs and buffers."""
    eager_in = _clone((args, kwargs))
    ours_in = _clone((args, kwargs))
    with torch.no_grad():
        want = model(*eager_in[0], **eager_in[1])
    got = program.run(*tensor_leaves(ours_in))
    _compare(got, want)
    for i, (g, w) in enumerate(
        zip(tensor_leaves(ours_in), tensor_leaves(eager_in), strict=True)
    ):
        _assert_same(g.numpy(), w, f"input {i} after the call")


def _check(example: Example, level: str) -> None:
    model, args, kwargs = example
    if isinstance(model, nn.Module):
        model.eval()
    reference = copy.deepcopy(model)
    program = fxdsl.from_torch(model, args, kwargs, decompose=level == "core")
    _run_both(program, reference, args, kwargs)
    if isinstance(model, nn.Module):
        # the buffers the program writes are written back into the exported
        # model's own, as eager wrote the reference's
        buffers = dict(reference.named_buffers())
        for name, buffer in model.named_buffers():
            _assert_same(buffer.numpy(), buffers[name], f"buffer {name}")


CASES: list[Any] = []


def case(**expect: Any) -> Callable[[Callable[[], Example]], Callable[[], Example]]:
    """Register a function building an `Example` as a case of
    `test_matches_eager` at both levels. `expect` may give a level
    (`default=`, `core=`) an xfail mark, or a regex: the level is then
    expected to refuse the program with a TorchImportError matching it."""

    def register(build: Callable[[], Example]) -> Callable[[], Example]:
        for level in LEVELS:
            what = expect.get(level)
            marks = [what] if isinstance(what, pytest.MarkDecorator) else []
            refused = what if isinstance(what, str) else None
            CASES.append(
                pytest.param(
                    build, level, refused, id=f"{build.__name__}-{level}", marks=marks
                )
            )
        return build

    return register


def xfail(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


WRITE_INTO_VIEW = r"writes into \w+, a view of the input .*decompose=True"
"""The default level's documented refusal of a write into a view of an
input or buffer (the core-ATen graph has it as a value)."""


def r(*shape: int) -> Any:
    return torch.randn(*shape)


class Fn(nn.Module):
    """A module whose forward is `fn` (so cases can be lambdas)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


@pytest.fixture(autouse=True)
def _seeded() -> None:
    torch.manual_seed(0)


# --------------------------------------------------------------------------
# Pytree inputs and outputs (test_basic, test_no_tensor_computation_*,
# test_export_func_with_var_keyword_pytree_args, test_module_with_dict_...)


@case()
def list_input() -> Example:
    return Fn(lambda xs, y: xs[0] + y), ([r(1, 3)], r(1, 3)), {}


@case()
def input_returned_unchanged() -> Example:
    class M(nn.Module):
        def forward(self, x: Any, y: int) -> Any:
            return x

    return M(), (r(3), 1), {}


@case()
def list_element_returned() -> Example:
    class M(nn.Module):
        def forward(self, x: Any, y: int) -> Any:
            return x

    return M(), ([r(3)], 1), {}


@case()
def var_positional_and_keyword_pytrees() -> Example:
    class M(nn.Module):
        def forward(
            self, a1: Any, a2: Any, *args: Any, kw1: Any, kw2: Any, **kwargs: Any
        ) -> Any:
            return (
                a1 + a2[0][0] + args[0] + kw1[0] + kwargs["kw3"][0],
                a2[1] + args[1] + kw2 + kwargs["kw4"],
            )

    args = (r(2, 3), [(r(2, 3),), r(3, 4)], r(2, 3), r(3, 4))
    kwargs = {
        "kw1": (r(2, 3),),
        "kw2": r(3, 4),
        "kw3": (r(2, 3), r(3, 4)),
        "kw4": r(3, 4),
    }
    return M(), args, kwargs


@case()
def dict_in_dict_out_conv_linear() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(4, 6, 3)
            self.weight = torch.randn(5, 6)  # plain attributes: constants
            self.bias = torch.randn(5)

        def forward(self, x: Any) -> Any:
            a1, a2 = x["a"]
            b = F.linear(self.conv(x["b"]).transpose(1, 3), self.weight, self.bias)
            one = F.linear(self.conv(a1).transpose(1, 3), self.weight, self.bias)
            two = F.linear(self.conv(a2).transpose(1, 3), self.weight, self.bias)
            return {"a": one.cos() + b.sin(), "b": two.sin() + b.cos()}

    x = {"a": (r(2, 4, 6, 7), r(2, 4, 6, 7)), "b": r(2, 4, 6, 7)}
    return M(), (x,), {}


@case()
def nested_tuple_input_and_output() -> Example:
    def f(xs: Any) -> Any:
        (a, (b, c)), d = xs
        return ((a + b,), [c * d, {"k": a - d}])

    return Fn(f), (((r(3), (r(3), r(3))), r(3)),), {}


@case()
def nested_constant_in_output() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bff = torch.randn(3, 2)

        def forward(self, x: Any, y: Any) -> Any:
            return {"prediction": (x + y, self.bff)}

    return M(), (r(3, 2), r(3, 2)), {}


@case()
def constant_output_without_inputs() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.b = torch.randn(3, 2)

        def forward(self) -> Any:
            return self.b

    return M(), (), {}


@case()
def none_in_outputs() -> Example:
    return Fn(lambda x: (None, x + 1, {"n": None, "t": x * 2})), (r(3),), {}


@case()
def repeated_outputs() -> Example:
    def f(x: Any) -> Any:
        y = x.sin()
        return y, x, y, x

    return Fn(f), (r(2, 3),), {}


@case()
def views_of_inputs_as_outputs() -> Example:
    return Fn(lambda x: (x.view(6), x[1], x.t(), x[:, 1:])), (r(2, 3),), {}


@case()
def kwargs_out_of_signature_order() -> Example:
    class M(nn.Module):
        def forward(self, a: Any, b: Any, c: Any, **kwargs: Any) -> Any:
            return a - b + c * kwargs["d"]

    return M(), (r(3),), {"c": r(3), "b": r(3), "d": r(3)}


@case()
def placeholder_names_colliding_in_pytree() -> Example:
    class M(nn.Module):
        def forward(self, x: Any, x_foo: Any, x_foo_0: Any) -> Any:
            return x["foo"][0] + x_foo[0] + x_foo_0

    return M(), ({"foo": [r(4, 4)]}, (r(4, 4),), r(4, 4)), {}


@case()
def placeholder_names_colliding_with_state() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.param = nn.Parameter(torch.randn(4))
            self.alpha = nn.Buffer(torch.randn(4), persistent=True)
            self.beta = nn.Buffer(torch.randn(4), persistent=False)
            self.gamma = torch.randn(4)

        def forward(self, p: Any, b_alpha: Any, b: Any, c_gamma: Any) -> Any:
            p = p["param"] + self.param
            b = self.alpha + self.beta + b_alpha + b["beta"]
            c = self.gamma + c_gamma
            return p, b, c

    return M(), ({"param": r(4)}, r(4), {"beta": r(4)}, r(4)), {}


@case()
def placeholder_names_colliding_with_nodes() -> Example:
    class M(nn.Module):
        def forward(self, mul: Any, add: Any, add_1: Any) -> Any:
            return mul * mul + add * add_1

    return M(), (r(4, 4), r(4, 4), r(4, 4)), {}


class _Pair(NamedTuple):
    a: Any
    b: Any


@case()
def namedtuple_output() -> Example:
    return Fn(lambda x: _Pair(x + 1, x * 2)), (r(3),), {}


@dataclasses.dataclass
class _Inputs:
    """A dataclass input (test_dynamic_shapes_builder_pytree's Inp1)."""

    x: Any
    y: list[Any]
    z: dict[str, Any]


torch.export.register_dataclass(
    _Inputs, serialized_type_name="test_export_peer_cases._Inputs"
)


@case()
def registered_class_input() -> Example:
    def f(inp: Any) -> Any:
        return inp.x + inp.y[0] + inp.z["k"]

    return Fn(f), (_Inputs(r(4), [r(4)], {"k": r(4)}),), {}


@case()
def ordered_dict_output_keys_not_sorted() -> Example:
    def f(d: Any) -> Any:
        return OrderedDict(b=d["a"] * 2, a=d["b"] - 1)

    return Fn(f), ({"a": r(2), "b": r(2)},), {}


# --------------------------------------------------------------------------
# Non-tensor inputs, specialised (test_mixed_input, test_constant_input_naming)


@case()
def int_alpha_input() -> Example:
    return (
        Fn(lambda a, b, alpha: torch.add(a, b, alpha=alpha)),
        (r(1, 2), r(1, 2), 10),
        {},
    )


@case()
def string_rounding_mode_input() -> Example:
    def f(x: Any, y: Any, div: str = "floor") -> Any:
        return torch.div(x, y, rounding_mode=div)

    return Fn(f), (r(4) * 5, r(4).abs() + 0.5, "floor"), {}


@case()
def float_and_bool_inputs() -> Example:
    def f(x: Any, scale: float, flip: bool, n: int) -> Any:
        y = x * scale
        if flip:
            y = -y
        return y.pow(n)

    return Fn(f), (r(3, 2), 0.5, True, 3), {}


@case()
def int_input_sizes_a_reshape() -> Example:
    return Fn(lambda x, n: x.reshape(n, -1).sum(1)), (r(6, 2), 3), {}


@case()
def branch_on_static_shape() -> Example:
    def f(x: Any) -> Any:
        return x + 1 if x.shape[0] == 4 else x

    return Fn(f), (r(4, 5),), {}


@case()
def none_input() -> Example:
    def f(x: Any, mask: Any = None) -> Any:
        return x if mask is None else x * mask

    return Fn(f), (r(3), None), {}


# --------------------------------------------------------------------------
# Parameters, buffers, constants


@case()
def param_minus_list_input() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.param = nn.Parameter(torch.randn(1, 3))

        def forward(self, x: Any, y: Any) -> Any:
            return x[0] + y - self.param

    return M(), ([r(1, 3)], r(1, 3)), {}


@case()
def parameter_in_a_plain_dict() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.params = {"foo": nn.Parameter(torch.randn(3, 3))}

        def forward(self, x: Any) -> Any:
            return x + self.params["foo"]

    return M(), (r(1, 3),), {}


@case()
def parameter_name_with_colon() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_parameter("foo:bar", nn.Parameter(torch.randn(3, 3)))

        def forward(self, x: Any) -> Any:
            return x + getattr(self, "foo:bar")

    return M(), (r(3, 3),), {}


@case()
def unused_constant() -> Example:
    def f(x: Any) -> Any:
        torch.tensor(3)
        return x * x

    return Fn(f), (r(3),), {}


@case()
def tensor_made_in_forward_under_enable_grad() -> Example:
    def f(x: Any, y: Any) -> Any:
        with torch.enable_grad():
            z = torch.tensor(4) + x + y
        return z * z

    return Fn(f), (r(4), r(4)), {}


@case()
def shared_submodule_non_persistent_buffer() -> Example:
    class Foo(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.randn(4), persistent=False)

        def forward(self, x: Any) -> Any:
            return x + self.buf

    class Bar(nn.Module):
        def __init__(self, foo: Any) -> None:
            super().__init__()
            self.foo = foo

        def forward(self, x: Any) -> Any:
            return self.foo(x)

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            foo = Foo()
            self.b1, self.b2 = Bar(foo), Bar(foo)

        def forward(self, x: Any) -> Any:
            return self.b1(x) + self.b2(x)

    return M(), (r(4),), {}


@case()
def module_made_inside_forward() -> Example:
    class Double(nn.Module):
        def forward(self, x: Any) -> Any:
            return x + x

    class M(nn.Module):
        def forward(self, x: Any) -> Any:
            return Double()(x) * x

    return M(), (r(3, 3),), {}


@case()
def buffer_made_in_submodule_init() -> Example:
    class Inner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.b = nn.Buffer(torch.randn(2, 2))

        def forward(self, x: Any) -> Any:
            return x.sum() + self.b.sum()

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Inner()
            self.scale = torch.ones(2, 2) * 3

        def forward(self, x: Any) -> Any:
            return self.inner(x) * self.scale

    return M(), (r(2, 2),), {}


@case()
def parameter_and_buffer_as_outputs() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(3, 3))
            self.register_buffer("b", torch.randn(3))

        def forward(self, x: Any) -> Any:
            return self.w, self.b, x + self.w, self.w.t()

    return M(), (r(3, 3),), {}


@case()
def one_tensor_passed_as_two_inputs() -> Example:
    x = r(3, 3)
    return Fn(lambda a, b: (a + b, a * b)), (x, x), {}


@case()
def embedding_and_its_weight_indexed() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(4, 4)

        def forward(self, x: Any) -> Any:
            return self.embed(x) + self.embed.weight[x]

    return M(), (torch.tensor([0, 1, 2, 3, 1]),), {}


@case()
def in_place_op_on_a_constant_derived_tensor() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.params = torch.ones((4, 4, 10))

        def forward(self, x: Any) -> Any:
            ff = self.params + 2
            ff2 = self.params + 1
            buf = torch.ops.aten.sub_.Tensor(ff, ff2)
            return buf.sum() + x.sum()

    return M(), (torch.zeros(4, 4, 10),), {}


@case()
def python_attributes_changed_in_forward() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.x = 1
            self.y = {"k": 2}
            self.z = (3,)

        def forward(self, x: Any) -> Any:
            self.x = self.x + 4
            self.y["k"] = self.y["k"] + 5
            self.z = (self.z[0] + 6,)
            return x + self.x + self.y["k"] + self.z[0]

    return M(), (r(2, 3),), {}


@case()
def shape_attribute_assigned_in_forward() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(10, 10)
            self.last_shape = self.linear.weight.shape

        def forward(self, x: Any) -> Any:
            self.last_shape = x.shape
            return self.linear(x)

    return M(), (r(20, 10),), {}


@case()
def scripted_function_inlined() -> Example:
    @torch.jit.script
    def _inner(x: torch.Tensor, y: torch.Tensor, f: float, i: int) -> torch.Tensor:
        return x * y * f * i

    class M(nn.Module):
        def forward(self, x: Any) -> Any:
            return _inner(x.sin(), x.cos(), 0.4, 2)

    return M(), (r(3, 4),), {}


# --------------------------------------------------------------------------
# State: buffer and input writes


class _AddToBuffer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.ones(3))

    def forward(self, x: Any) -> Any:
        self.buf.add_(x)
        return x * self.buf


@case()
def buffer_add_() -> Example:
    return _AddToBuffer(), (r(3),), {}


@case()
def int_buffer_written_by_a_submodule_thrice() -> Example:
    class Child(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.buf = nn.Buffer(torch.tensor(10))

        def forward(self, x: Any) -> Any:
            self.buf.add_(1)
            return x + 2

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.child = Child()

        def forward(self, x: Any) -> Any:
            for _ in range(3):
                x = self.child(x) + self.child.buf
            return x

    return M(), (torch.ones(2, 3),), {}


@case()
def buffer_written_by_branch_on_a_bool_argument() -> Example:
    class N(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.ones(1), persistent=False)

        def forward(self, x: Any, b: bool) -> Any:
            self.buf.add_(1 if b else 2)
            return x + self.buf

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n = N()

        def forward(self, x: Any) -> Any:
            x = self.n(x, True) + 1
            x = self.n(x, False) + 1
            return self.n(x, True)

    return M(), (r(1),), {}


@case()
def nested_buffers_read_and_written() -> Example:
    class Leaf(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.buf = nn.Buffer(torch.ones(1))

        def forward(self, x: Any) -> Any:
            return x + 1

    class Mid(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.buf = nn.Buffer(torch.ones(1))
            self.leaf = Leaf()

        def forward(self, x: Any) -> Any:
            x = self.leaf(x + self.leaf.buf)
            self.leaf.buf.add_(1)
            return x + 1

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mid = Mid()

        def forward(self, x: Any) -> Any:
            x = self.mid(x + self.mid.buf)
            x = self.mid.leaf(x + self.mid.leaf.buf)
            self.mid.buf.add_(1)
            return self.mid(x)

    return M(), (r(1),), {}


@case()
def registered_buffer_reassigned() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.buf = nn.Buffer(torch.ones(2, 3), persistent=False)

        def forward(self, x: Any) -> Any:
            y = self.buf
            w1, w2, w3 = self.buf + 3, self.buf + 4, self.buf + 5
            self.buf = w1
            z = self.buf
            self.buf = w3
            return x + y + z + w2

    return M(), (r(2, 3),), {}


@case(default=WRITE_INTO_VIEW)
def buffer_slice_assigned() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.zeros(10))

        def forward(self, x: Any, y: Any) -> Any:
            self.buf[0 : x.shape[0]] = x
            return x + 2, y[:, ::1], self.buf * 1

    return M(), (r(6), r(3, 4)), {}


@case()
def user_input_add_() -> Example:
    class Child(nn.Module):
        def forward(self, x: Any) -> Any:
            a = x.add_(3)
            return a - 2

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.child = Child()

        def forward(self, x: Any) -> Any:
            return self.child(x) + x * 4

    return M(), (torch.ones(2, 3),), {}


@case(default=WRITE_INTO_VIEW)
def user_input_returned_after_a_write() -> Example:
    def f(x: Any, y: Any) -> Any:
        x.mul_(2)
        y[0] = 5.0
        return x, y.sum()

    return Fn(f), (r(3), r(4)), {}


@case()
def inplace_dropout_eval_on_input() -> Example:
    class Child(nn.Module):
        def forward(self, x: Any) -> Any:
            torch.ops.aten.dropout_(x, 0.5, False)
            return x - 2

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.child = Child()

        def forward(self, x: Any) -> Any:
            return self.child(x) + x * 4

    return M(), (torch.ones(3, 10),), {}


@case()
def in_place_add_on_a_conv_output() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.pool = nn.MaxPool2d(3)

        def forward(self, x: Any, y: Any) -> Any:
            a = self.conv(x)
            a.add_(y)
            return self.pool(F.relu(a))

    return M(), (r(2, 3, 12, 12), torch.ones(2, 8, 12, 12)), {}


@case()
def cast_of_input_treated_as_view() -> Example:
    class Grandchild(nn.Module):
        def forward(self, x: Any) -> Any:
            return x + 4, x.to(torch.float32)

    class Child(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.grandchild = Grandchild()

        def forward(self, x: Any) -> Any:
            y, a = self.grandchild(x)
            return y + a

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.child = Child()

        def forward(self, x: Any) -> Any:
            return self.child(x) + x * 2 + x

    return M(), (torch.ones(2, 3),), {}


@case()
def mutated_input_returned() -> Example:
    def f(x: Any) -> Any:
        x.add_(1)
        return x, x * 2

    return Fn(f), (r(3, 4),), {}


@case()
def copy_into_input() -> Example:
    def f(x: Any, y: Any) -> Any:
        x.copy_(y)
        return x.sum()

    return Fn(f), (r(3, 4), r(4)), {}


@case()
def index_put_into_input() -> Example:
    def f(x: Any, i: Any, v: Any) -> Any:
        x.index_put_((i,), v)
        return x * 1

    return Fn(f), (r(3, 4), torch.tensor([2, 0]), r(2, 4)), {}


@case()
def buffer_read_before_and_after_write() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.ones(3, 4))

        def forward(self, x: Any) -> Any:
            before = self.buf * 1
            self.buf.add_(x)
            return before, self.buf + 0, self.buf

    return M(), (r(3, 4),), {}


@case()
def int_counter_buffer() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("calls", torch.tensor(0))

        def forward(self, x: Any) -> Any:
            self.calls.add_(1)
            return x * self.calls

    return M(), (r(3),), {}


@case()
def two_in_place_ops_on_an_input() -> Example:
    def f(x: Any) -> Any:
        x.add_(1)
        x.mul_(2)
        return x + 0

    return Fn(f), (r(3),), {}


@case()
def view_of_input_read_after_a_write() -> Example:
    def f(x: Any) -> Any:
        row = x[0]
        x.add_(1)
        return row * 2

    return Fn(f), (r(2, 3),), {}


@case()
def view_of_intermediate_read_after_a_write() -> Example:
    """Only the view is read after the write, not the intermediate."""

    def f(x: Any) -> Any:
        t = x * 2
        row, col = t[0], t[:, 1:]
        t.add_(1)
        return row * 3, col.sum(0)

    return Fn(f), (r(2, 3),), {}


@case(default=r"writes into \w+, a view of \w+, whose view \w+ is read again")
def sibling_view_read_after_a_write_through_another() -> Example:
    """A write through one view of an intermediate, another view of it read
    after: refused at the default level (it read the old row), right at the
    core level."""

    def f(x: Any) -> Any:
        t = x * 2
        row = t[0]
        t[0].add_(1)
        return row * 3

    return Fn(f), (r(2, 3),), {}


@case()
def view_of_buffer_read_after_a_write() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.zeros(3, 4))

        def forward(self, x: Any) -> Any:
            first = self.buf[0]
            self.buf.add_(x)
            return first * 1, self.buf * 1

    return M(), (r(3, 4),), {}


@case(default=WRITE_INTO_VIEW)
def fill_into_a_column_of_an_input() -> Example:
    def f(x: Any) -> Any:
        x[:, 1].fill_(0)
        return x + 1

    return Fn(f), (r(3, 4),), {}


@case(default=WRITE_INTO_VIEW)
def write_through_transpose_of_a_buffer() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.ones(3, 4))

        def forward(self, x: Any) -> Any:
            self.buf.t().mul_(3)
            return self.buf + x

    return M(), (r(3, 4),), {}


# --------------------------------------------------------------------------
# Wrappers torch.export puts around regions (grad mode, autocast, vmap)


@case()
def enable_grad_block_around_a_linear() -> Example:
    """from_torch exports under no_grad, so a `no_grad` block leaves no
    wrapper; `enable_grad` does (test_setgrad_lifted_tensor)."""

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            with torch.enable_grad():
                y = self.linear(x)
            return y * 2

    return M(), (r(2, 3),), {}


@case()
def autocast_block() -> Example:
    def f(x: Any) -> Any:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x.T
        return y.float()

    return Fn(f), (r(4, 3).round(),), {}


@case()
def vmap_over_a_parameter_product() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(3, 2))

        def forward(self, x: Any) -> Any:
            return torch.vmap(lambda a: a @ self.w)(x)

    return M(), (r(4, 3),), {}


@case()
def associative_scan_generic() -> Example:
    from torch._higher_order_ops.associative_scan import associative_scan

    def f(x: Any) -> Any:
        return associative_scan(lambda a, b: a + b, x, dim=0, combine_mode="generic")

    return Fn(f), (r(5, 3),), {}


# --------------------------------------------------------------------------
# torch.nn modules (test_linear_conv, test_attention, test_torch_fn,
# test_decomp_batch_norm_functional_predispatch, ...)


@case()
def linear_twice_relu_add() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            x = F.relu(self.linear(self.linear(x)))
            return x + x

    return M(), (r(3, 3),), {}


@case()
def functional_linear_with_weight_inputs() -> Example:
    def f(x: Any, weight: Any, bias: Any) -> Any:
        x = F.relu(F.linear(x, weight, bias))
        return torch.add(x, x)

    return Fn(f), (r(3, 3), r(3, 3), r(3)), {}


@case()
def linear_then_chunk() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            return torch.ops.aten.chunk.default(self.linear(x), 3, 0)

    return M(), (r(3, 3),), {}


@case()
def conv2d_and_conv1d() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(4, 5, 3)
            self.conv1d = nn.Conv1d(4, 5, 3)

        def forward(self, x: Any, y: Any) -> Any:
            return self.conv(x).cos() + self.conv1d(y).sum()

    return M(), (r(2, 4, 8, 9), r(2, 4, 10)), {}


@case()
def conv_squeeze_conv1d() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1d = nn.Conv1d(3, 3, 3)
            self.conv2d = nn.Conv2d(3, 3, 3)

        def forward(self, x: Any) -> Any:
            return self.conv1d(self.conv2d(x).squeeze(0))

    return M(), (r(1, 3, 5, 5),), {}


@case()
def conv_batchnorm_eval() -> Example:
    model = nn.Sequential(nn.Conv2d(1, 3, 1, 1), nn.BatchNorm2d(3))
    bn = model[1]
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    return model, (r(1, 1, 3, 3),), {}


@case()
def conv_transpose_instance_norm_batch_norm_1d() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.up = nn.ConvTranspose2d(3, 2, 3, stride=2)
            self.inorm = nn.InstanceNorm2d(2)
            self.bn = nn.BatchNorm1d(4)
            self.bn.running_mean.uniform_()
            self.bn.running_var.uniform_(1, 2)

        def forward(self, x: Any, y: Any) -> Any:
            return self.inorm(self.up(x)), self.bn(y)

    return M(), (r(1, 3, 5, 5), r(6, 4)), {}


@case()
def layer_norm_and_group_norm() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln = nn.LayerNorm(8)
            self.gn = nn.GroupNorm(2, 4)

        def forward(self, x: Any) -> Any:
            return self.ln(x), self.gn(x)

    return M(), (r(2, 4, 3, 8),), {}


@case()
def sequential_slice_as_submodule() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.seq = nn.Sequential(*(nn.Linear(4, 4) for _ in range(3)))

        def forward(self, x: Any) -> Any:
            return self.seq[1:](x)

    return M(), (r(4, 4),), {}


@case()
def module_dict_and_list_of_blocks_with_dropout() -> Example:
    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.to_out = nn.ModuleList([nn.Linear(16, 16), nn.Dropout(0.5)])

        def forward(self, x: Any) -> Any:
            for layer in self.to_out:
                x = layer(x)
            return x

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleDict({str(i): Block() for i in range(3)})
            self.more = nn.ModuleList([Block() for _ in range(3)])

        def forward(self, x: Any) -> Any:
            for block in self.blocks.values():
                x = block(x)
            for block in self.more[1:]:
                x = block(x)
            return x

    return M(), (r(8, 16),), {}


@case()
def embedding_bag_of_tokens() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(10, 6, padding_idx=0)
            self.proj = nn.Linear(6, 2)

        def forward(self, ids: Any) -> Any:
            return self.proj(self.emb(ids).mean(1))

    return M(), (torch.tensor([[1, 2, 0], [4, 9, 3]]),), {}


@case()
def lstm() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True)

        def forward(self, x: Any) -> Any:
            out, (h, c) = self.lstm(x)
            return out, h, c

    return M(), (r(2, 6, 4),), {}


@case()
def gru_with_initial_state() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(3, 4)

        def forward(self, x: Any, h: Any) -> Any:
            return self.gru(x, h)

    return M(), (r(5, 2, 3), r(1, 2, 4)), {}


@case()
def multihead_attention() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(32, 4, dropout=0.0, batch_first=True)

        def forward(self, x: Any) -> Any:
            out, _ = self.attn(x, x, x, need_weights=False)
            return out

    return M(), (r(1, 16, 32),), {}


@case()
def multihead_attention_with_weights_and_mask() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(16, 2)

        def forward(self, q: Any, kv: Any, mask: Any) -> Any:
            return self.attn(q, kv, kv, key_padding_mask=mask)

    mask = torch.tensor([[False, False, False, True, True], [False] * 5])
    return M(), (r(3, 2, 16), r(5, 2, 16), mask), {}


@case()
def transformer_encoder_layer() -> Example:
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
    return layer, (r(2, 5, 16),), {}


@case()
def sdpa_causal() -> Example:
    def f(q: Any, k: Any, v: Any) -> Any:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    return Fn(f), (r(2, 2, 8, 4), r(2, 2, 8, 4), r(2, 2, 8, 4)), {}


@case()
def sdpa_bool_mask_input_and_scale() -> Example:
    def f(q: Any, k: Any, v: Any, mask: Any) -> Any:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)

    mask = torch.rand(1, 1, 6, 7) > 0.3
    mask[..., 0] = True
    return Fn(f), (r(2, 3, 6, 4), r(2, 3, 7, 4), r(2, 3, 7, 5), mask), {}


@case()
def interpolate_to_own_size() -> Example:
    def f(x: Any) -> Any:
        size = (int(x.shape[-2] / 1), int(x.shape[-1] / 1))
        return F.interpolate(x, size=size, mode="bilinear")

    return Fn(f), (torch.rand(1, 3, 8, 8),), {}


@case()
def pools_and_adaptive_pool() -> Example:
    def f(x: Any) -> Any:
        return (
            F.max_pool2d(x, 2),
            F.avg_pool2d(x, 3, stride=2, padding=1),
            F.adaptive_avg_pool2d(x, (1, 1)),
        )

    return Fn(f), (r(2, 3, 8, 8),), {}


# --------------------------------------------------------------------------
# dtypes, 0-d tensors, zero-size dims


@case()
def int64_arithmetic() -> Example:
    def f(a: Any, b: Any) -> Any:
        return a + b, a * 3, a // b, a % b, -a, (a << 2) ^ b

    a = torch.randint(-50, 50, (4, 5))
    b = torch.randint(1, 9, (4, 5))
    return Fn(f), (a, b), {}


@case()
def int32_promoted_with_float() -> Example:
    def f(a: Any, x: Any) -> Any:
        return a + x, a * 2, (a / 3), a.to(torch.int64).sum()

    return Fn(f), (torch.randint(-9, 9, (3, 4), dtype=torch.int32), r(3, 4)), {}


@case()
def bool_logic_and_where() -> Example:
    def f(m: Any, n: Any, x: Any) -> Any:
        both = m & n
        return both, m | ~n, torch.where(both, x, -x), both.sum(), m.any(), n.all()

    m = torch.rand(3, 4) > 0.5
    n = torch.rand(3, 4) > 0.5
    return Fn(f), (m, n, r(3, 4)), {}


@case()
def uint8_and_int8() -> Example:
    def f(a: Any, b: Any) -> Any:
        return a + 1, b * 2, a.to(torch.float32) / 255

    a = torch.randint(0, 255, (6,), dtype=torch.uint8)
    b = torch.randint(-60, 60, (6,), dtype=torch.int8)
    return Fn(f), (a, b), {}


@case()
def float64_math() -> Example:
    def f(x: Any) -> Any:
        return x.exp().log1p() * 2, x.sum(0)

    return Fn(f), (torch.randn(3, 4, dtype=torch.float64),), {}


@case()
def comparisons_give_bool() -> Example:
    def f(x: Any, y: Any) -> Any:
        return x > y, x.eq(0.1), (x >= 0).to(torch.int64)

    return Fn(f), (r(5), r(5)), {}


@case()
def zero_dim_tensors() -> Example:
    def f(s: Any, x: Any, i: Any) -> Any:
        return s * x, s + 1, x.sum(), i * 2, s.reshape(1)

    return Fn(f), (torch.tensor(2.5), r(3), torch.tensor(7)), {}


@case()
def scalar_tensor_index_and_mean() -> Example:
    return Fn(lambda x: (x[1, 2], x.mean(), x.max())), (r(3, 4),), {}


@case()
def zero_size_dims() -> Example:
    def f(x: Any, e: Any) -> Any:
        return torch.cat([x, e]), e.sum(0), e * 2, x[:0]

    return Fn(f), (r(3, 4), r(0, 4)), {}


@case()
def reduction_over_an_empty_dim() -> Example:
    def f(e: Any) -> Any:
        return e.sum(1), e.mean(0) if e.shape[0] else e.sum(0), e.reshape(3, 0)

    return Fn(f), (r(3, 0),), {}


@case()
def argmax_and_topk_indices() -> Example:
    def f(x: Any) -> Any:
        values, indices = x.topk(2, dim=1)
        return x.argmax(1), values, indices

    return Fn(f), (r(4, 6),), {}


@case()
def nonzero_static_and_gather() -> Example:
    def f(seq: Any, mask: Any, exp: Any) -> Any:
        index = torch.nonzero_static(mask, size=exp.shape[0])
        chunked = index.chunk(chunks=mask.dim(), dim=1)
        return seq[chunked].squeeze() * 2

    return Fn(f), (r(5, 5), torch.ones(5, 5, dtype=torch.bool), r(25)), {}


@case()
def masked_fill_tril_einsum() -> Example:
    def f(x: Any, y: Any) -> Any:
        causal = torch.ones(4, 4, dtype=torch.bool).tril()
        s = torch.einsum("bij,bkj->bik", x, y).masked_fill(~causal, float("-inf"))
        return s.softmax(-1)

    return Fn(f), (r(2, 4, 3), r(2, 4, 3)), {}


# --------------------------------------------------------------------------
# The cases, at both levels


@pytest.mark.parametrize(("build", "level", "refused"), CASES)
def test_matches_eager(
    build: Callable[[], Example], level: str, refused: str | None
) -> None:
    if refused is None:
        _check(build(), level)
        return
    model, args, kwargs = build()
    with pytest.raises(TorchImportError, match=refused):
        fxdsl.from_torch(model, args, kwargs, decompose=level == "core")


# --------------------------------------------------------------------------
# Other export paths: an ExportedProgram made by the caller


def _export(model: Any, args: Any, **kwargs: Any) -> Any:
    with torch.no_grad():
        return torch.export.export(model, args, strict=False, **kwargs)


def _mlp() -> Any:
    return nn.Sequential(nn.Linear(10, 6), nn.ReLU(), nn.Linear(6, 1)).eval()


def test_exported_program_non_strict() -> None:
    model, x = _mlp(), r(5, 10)
    program = fxdsl.from_exported_program(_export(model, (x,)))
    _run_both(program, model, (x,), {})


def test_run_decompositions_default_table() -> None:
    model, x = _mlp(), r(5, 10)
    program = fxdsl.from_exported_program(_export(model, (x,)).run_decompositions())
    _run_both(program, model, (x,), {})


def test_run_decompositions_empty_table() -> None:
    model, x = _mlp(), r(5, 10)
    ep = _export(model, (x,)).run_decompositions({})
    _run_both(fxdsl.from_exported_program(ep), model, (x,), {})


def test_run_decompositions_custom_table_is_what_imports() -> None:
    """A custom decomposition of linear (x + bias) changes the program:
    fxdsl imports what the ExportedProgram computes (ep.module()), not the
    eager model."""
    model, x = nn.Linear(10, 10).eval(), r(5, 10)
    table = torch.export.default_decompositions()
    table[torch.ops.aten.linear.default] = lambda x, weight, bias: x + bias
    ep = _export(model, (x,)).run_decompositions(table)
    program = fxdsl.from_exported_program(ep)
    _run_both(program, ep.module(), (x,), {})


def test_reexport_of_ep_module() -> None:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(4, 6, 3)

        def forward(self, xs: Any) -> Any:
            a, b = xs
            return self.conv(a).cos() + self.conv(b).sin(), self.conv(b)

    model = M().eval()
    args = ((r(2, 4, 7, 7), r(2, 4, 7, 7)),)
    again = _export(_export(model, args).module(), args)
    _run_both(fxdsl.from_exported_program(again), model, args, {})


def test_preserve_module_call_signature() -> None:
    class N(nn.Module):
        def forward(self, x: Any, b: bool) -> Any:
            return x + 1 if b else x + 2

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n = N()

        def forward(self, x: Any) -> Any:
            return self.n(x + 3, True) + self.n(x + 4, False)

    model, x = M(), r(4)
    ep = _export(model, (x,), preserve_module_call_signature=("n",))
    program = fxdsl.from_exported_program(ep)
    _run_both(program, model, (x,), {})
    fxdsl.apply(program.module, "graph-unflatten")
    (got,) = fxdsl.run(program.module, *program.weights, x.numpy())
    _assert_same(got, model(x), "after graph-unflatten")


def test_batch_norm_exported_in_training_mode() -> None:
    """An ExportedProgram of training mode: batch statistics, and the
    running statistics (and num_batches_tracked) written back."""
    model = nn.Sequential(nn.Conv2d(1, 3, 1), nn.BatchNorm2d(3)).train()
    reference = copy.deepcopy(model)
    x = r(2, 1, 4, 4)
    ep = torch.export.export(model, (x,), strict=False)
    program = fxdsl.from_exported_program(ep)
    (got,) = program.run(x.clone())
    with torch.no_grad():
        want = reference(x.clone())
    _assert_same(got, want, "output")
    after = dict(reference.named_buffers())
    for name, buffer in model.named_buffers():
        _assert_same(buffer.numpy(), after[name], f"buffer {name}")


def test_buffer_state_carries_across_calls() -> None:
    model = _AddToBuffer()
    reference = copy.deepcopy(model)
    program = fxdsl.from_torch(model, (r(3),))
    for _ in range(3):
        x = r(3)
        (got,) = program.run(x)
        _assert_same(got, reference(x), "output")
    _assert_same(model.buf.numpy(), reference.buf, "buffer after three calls")


def test_wrong_inputs_are_a_value_error() -> None:
    program = fxdsl.from_torch(Fn(lambda x, y: x + y), (r(2, 3), r(2, 3)))
    with pytest.raises(ValueError, match=r"takes 2 input\(s\).*got 1"):
        program.run(r(2, 3))
    with pytest.raises(ValueError, match=r"input 1 .*shape \(2, 4\)"):
        program.run(r(2, 3), r(2, 4))


# --------------------------------------------------------------------------
# Refusals: what fxdsl does not import must say so


def _cond_on_input() -> Example:
    def f(p: Any, x: Any) -> Any:
        return torch.cond(p, lambda x: x.sin(), lambda x: x.cos(), (x,))

    return Fn(f), (torch.tensor(True), r(3, 4)), {}


def _cond_on_data() -> Example:
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.num = 4

        def forward(self, x: Any) -> Any:
            def true_fn(x: Any) -> Any:
                return x * self.num

            def false_fn(x: Any) -> Any:
                return x + self.num

            return torch.cond(x.sum() > 0, true_fn, false_fn, (x,)) * 2

    return M(), (r(10),), {}


def _cond_returning_int() -> Example:
    def f(x: Any) -> Any:
        idx = torch.cond(x.sum() > 3, lambda: 0, lambda: 1, ())
        return x[idx]

    return Fn(f), (r(3, 3),), {}


def _map() -> Example:
    from torch._higher_order_ops.map import map as control_map

    return Fn(lambda xs, y: control_map(lambda x, y: x + y, xs, y)), (r(3, 2), r(2)), {}


def _while_loop() -> Example:
    from torch._higher_order_ops.while_loop import while_loop

    def f(ci: Any, a: Any, b: Any) -> Any:
        return while_loop(
            lambda i, x, y: i > 0, lambda i, x, y: (i - 1, x + y, y - x), [ci, a, b]
        )

    return Fn(f), (torch.tensor(2), r(3, 4), r(3, 4)), {}


def _item_added() -> Example:
    return Fn(lambda x, y: y + x.max().item()), (torch.tensor([1, 2]), r(2, 3)), {}


def _item_multiplied() -> Example:
    return Fn(lambda x, y: y * x.max().item()), (torch.tensor([1, 2]), r(2, 3)), {}


def _float_item_added() -> Example:
    return Fn(lambda x, y: y + x.sum().item()), (r(2), r(2, 3)), {}


def _index_by_0d_tensor() -> Example:
    return Fn(lambda x, i: x[i]), (r(4, 3), torch.tensor(2)), {}


def _scan() -> Example:
    from torch._higher_order_ops.scan import scan

    def f(init: Any, xs: Any) -> Any:
        return scan(lambda c, x: (c + x, c * 2), init, xs)

    return Fn(f), (torch.zeros(3), r(4, 3)), {}


def _hints_wrapper() -> Example:
    from torch._higher_order_ops.hints_wrap import hints_wrapper

    def f(x: Any, y: Any) -> Any:
        return hints_wrapper(lambda a, b: a.relu() + b, (x + y, y), {}, hints={"h": 1})

    return Fn(f), (r(2, 4), torch.ones(4)), {}


def _nonzero() -> Example:
    return Fn(torch.nonzero), (torch.tensor([1.0, 0.0, 2.0]),), {}


def _bincount() -> Example:
    def f(x: Any) -> Any:
        return x.bincount(torch.linspace(0, 1, steps=5))

    return Fn(f), (torch.tensor([1, 4, 1, 0, 7]),), {}


def _masked_select() -> Example:
    return Fn(lambda x: x[x > 0]), (r(5),), {}


def _unique() -> Example:
    return Fn(torch.unique), (torch.tensor([1, 2, 2, 3]),), {}


def _int_output() -> Example:
    return Fn(lambda x, y: y), ([r(1, 3)], 1), {}


def _shape_output() -> Example:
    def f(x: Any) -> Any:
        z, y = x.size()
        return z + y + x[0], z

    return Fn(f), (r(2, 3),), {}


REFUSED = [
    pytest.param(_cond_on_input, r"\bcond\b", id="cond_on_a_predicate_input"),
    pytest.param(_cond_on_data, r"\bcond\b", id="cond_on_data_int_closure"),
    pytest.param(_cond_returning_int, r"\bcond\b", id="cond_branches_return_int"),
    pytest.param(_map, r"\bmap", id="map"),
    pytest.param(_while_loop, r"while_loop", id="while_loop"),
    pytest.param(_scan, r"\bscan\b", id="scan"),
    pytest.param(_hints_wrapper, r"hints_wrapper", id="hints_wrapper"),
    pytest.param(_item_multiplied, r"item.*Python number", id="item_times_a_tensor"),
    pytest.param(
        _item_added,
        r"item.*Python number",
        id="item_plus_a_tensor",
    ),
    pytest.param(
        _float_item_added,
        r"item.*Python number",
        id="float_item_plus_a_tensor",
    ),
    pytest.param(_index_by_0d_tensor, r"item|_local_scalar_dense", id="index_by_0d"),
    pytest.param(_nonzero, r"nonzero|data-dependent|unbacked", id="nonzero"),
    pytest.param(_bincount, r"bincount|data-dependent|unbacked", id="bincount"),
    pytest.param(_masked_select, r"depends on a tensor's values", id="bool_mask_index"),
    pytest.param(_unique, r"depends on a tensor's values", id="unique"),
    pytest.param(_int_output, r"not a tensor", id="int_output"),
    pytest.param(_shape_output, r"not a tensor", id="shape_int_output"),
]


@pytest.mark.parametrize(("build", "match"), REFUSED)
def test_refused_clearly(build: Callable[[], Example], match: str) -> None:
    model, args, kwargs = build()
    with pytest.raises(REFUSALS) as info:
        fxdsl.from_torch(model, args, kwargs)
    assert re.search(match, str(info.value)), str(info.value)


def test_dynamic_shapes_are_refused() -> None:
    batch = torch.export.Dim("batch")
    ep = torch.export.export(
        _mlp(), (r(5, 10),), dynamic_shapes={"input": {0: batch}}, strict=False
    )
    with pytest.raises(TorchImportError, match=r"dynamic shape.*static shapes"):
        fxdsl.from_exported_program(ep)


def test_dim_auto_that_stays_static_imports() -> None:
    """Dim.AUTO on a dim the program specialises leaves no symbol: it
    imports as a static program."""

    class M(nn.Module):
        def forward(self, x: Any) -> Any:
            torch._check(x.shape[0] == 4)
            return x * 2

    model, x = M(), r(4, 3)
    ep = torch.export.export(
        model, (x,), dynamic_shapes={"x": (torch.export.Dim.AUTO, None)}, strict=False
    )
    _run_both(fxdsl.from_exported_program(ep), model, (x,), {})


def test_is_exporting_picks_the_export_branch() -> None:
    def f(x: Any) -> Any:
        return x.sin() if torch.compiler.is_exporting() else x.cos()

    x = r(3)
    (got,) = fxdsl.from_torch(Fn(f), (x,)).run(x)
    _assert_same(got, x.sin(), "output")


def test_strict_export() -> None:
    model, x = _mlp(), r(5, 10)
    program = fxdsl.from_torch(model, (x,), strict=True)
    _run_both(program, model, (x,), {})


def test_no_grad_block_in_a_program_exported_with_grad() -> None:
    """A user's own export (grad enabled) of a model with a `no_grad` block
    (Hugging Face's rotary embeddings are decorated so)."""

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            with torch.no_grad():
                y = self.linear(x)
            return y * 2

    model, x = M(), r(2, 3)
    ep = torch.export.export(model, (x,), strict=False)
    _run_both(fxdsl.from_exported_program(ep), model, (x,), {})
