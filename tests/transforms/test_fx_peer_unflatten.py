"""torch.export's unflatten tests (`test/export/test_unflatten.py`, and the
repeated-call cases of `test/export/test_export.py`) ported to
`graph-unflatten` on programs imported with `fxdsl.from_torch`.

Each test names the torch test it mirrors. Where torch checks
`unflattened.foo.bar`, these check the module functions (named by fqn), the
module calls (fqn relative to the caller, call index, callee: one function
for identical calls), `fxdsl.run` of the unflattened module (and of single
module functions, with `entry=`) against torch eager, and that
`flatten(unflatten(m))` prints as `m`.

Not ported, no meaning here:
- test_unflatten_with_inplace_compile: torch.compile of an unflattened submodule.
- test_unflatten_eager: `_disable_interpreter` / InterpreterModule and
  `torch.fx.symbolic_trace` of the result are torch.fx runtime details.
- test_fx_trace: symbolic_trace of the result (its nested inputs are
  kept, see test_nested_inputs_stay_flat_arguments).
- test_unflatten_requires_grad_param: meta-device parameters and
  `requires_grad`; the IR has no autograd state.
- test_unflatten_constant_obj: torchbind custom objects (not importable).
- test_dedup_sym_size: dynamic shapes (sym_size); the importer takes static
  shapes only.
- test_unflatten_preserve_signature, its FlatArgsAdapter / tree-spec checks
  and the `unflattened.foo.nested = NestedChild()` swap: no pytree specs or
  module objects to swap in the IR (the signature itself is ported).
- strict vs non-strict tracing (every test's `strict=` loop): a torch.export
  tracer detail; fxdsl imports what torch.export gives.
- test_unflatten_container_type's re-export of the unflattened module.
- test_unflatten_wrong_input's exact torch message (the refusal is ported).
- test_unflatten_nested's state-dict comparison: weights stay arguments of
  the entry function (checked through `graph.param` instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import PassFailedException

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import from_exported_program  # noqa: E402
from fxdsl.ir.graph import CALL_SIGNATURES, NAME, PARAM, SignatureAttr  # noqa: E402
from fxdsl.ir.utils import arg_attr  # noqa: E402
from fxdsl.testing import clone_module  # noqa: E402
from fxdsl.transforms.call_signatures import set_value_name  # noqa: E402
from fxdsl.transforms.graph_unflatten import flatten, unflatten  # noqa: E402
from fxdsl.transforms.scope_tree import MODULE_ATTR  # noqa: E402

nn = torch.nn

# -- helpers ------------------------------------------------------------------ #


def leaves(tree: Any) -> list[np.ndarray]:
    """The tensors of a pytree, as numpy arrays, in torch.export's order."""
    flat = torch.utils._pytree.tree_leaves(tree)
    return [t.detach().numpy() for t in flat if isinstance(t, torch.Tensor)]


def eager(model: Any, args: tuple[Any, ...]) -> list[np.ndarray]:
    with torch.no_grad():
        return leaves(model(*args))


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def calls(function: func.FuncOp) -> list[tuple[str, int, str]]:
    """Module calls of `function` in order: (relative fqn, call index, callee)."""
    found = []
    for op in function.body.walk():
        if isinstance(op, func.CallOp) and MODULE_ATTR in op.attributes:
            fqn, index, _ = op.attributes[MODULE_ATTR].data[0]
            found.append((fqn, index, op.callee.string_value()))
    return found


def param_attrs(function: func.FuncOp) -> list[str | None]:
    return [arg_attr(function, i, PARAM) for i in range(len(function.args))]


def assert_close(got: Any, want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


class Unflattened:
    """A model imported, unflattened, run and flattened back."""

    def __init__(
        self, model: Any, args: tuple[Any, ...], decompose: bool = False
    ) -> None:
        self.model = model.eval()
        self.args = args
        self.flat, self.weights = fxdsl.from_torch(model, args, decompose=decompose)
        self.text = str(self.flat)
        self.module = unflatten(clone_module(self.flat))
        self.module.verify()
        self.functions = functions(self.module)

    def run(self, *inputs: Any, entry: str | None = None) -> tuple[np.ndarray, ...]:
        return fxdsl.run(self.module, *inputs, entry=entry)

    def check(self) -> Unflattened:
        """Numerics equal torch eager; flatten inverts unflatten."""
        want = eager(self.model, self.args)
        assert_close(self.run(*self.weights, *leaves(self.args)), want)
        assert str(flatten(clone_module(self.module))) == self.text
        return self

    def calls(self, name: str = "forward") -> list[tuple[str, int, str]]:
        return calls(self.functions[name])


# -- TestUnflatten ------------------------------------------------------------ #


class NestedChild(nn.Module):
    def forward(self, x: Any) -> Any:
        return x / x


class Child1(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nested = NestedChild()
        self.child1param = nn.Parameter(torch.rand(2, 3))

    def forward(self, x: Any) -> Any:
        return self.nested(x) + self.child1param


class Child2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.child2buffer = nn.Buffer(torch.rand(2, 3))

    def forward(self, x: Any) -> Any:
        return x - self.child2buffer


class Nested(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.foo = Child1()
        self.bar = Child2()
        self.rootparam = nn.Parameter(torch.rand(2, 3))

    def forward(self, x: Any) -> Any:
        return self.bar(self.foo(x * self.rootparam))


def test_nested_modules() -> None:
    # test_unflatten_nested: root, submodules and their submodules
    model = Nested()
    u = Unflattened(model, (torch.rand(2, 3),)).check()
    assert set(u.functions) == {"forward", "foo", "foo.nested", "bar"}
    assert u.calls() == [("foo", 0, "foo"), ("bar", 0, "bar")]
    assert u.calls("foo") == [("nested", 0, "foo.nested")]
    assert u.calls("bar") == u.calls("foo.nested") == []
    # each submodule alone equals its eager module (compare_outputs on
    # unflattened.foo, .bar, .foo.nested); weights follow the inputs
    assert param_attrs(u.functions["foo"]) == [None, "child1param"]
    x = torch.rand(2, 3)
    (p,) = [w for w, a in zip(u.weights, param_attrs(u.functions["forward"]))
            if a == "foo.child1param"]  # fmt: skip
    assert_close(u.run(x.numpy(), p, entry="foo"), eager(model.foo, (x,)))
    assert_close(u.run(x.numpy(), entry="bar"), eager(model.bar, (x,)))
    want = eager(model.foo.nested, (x,))
    assert_close(u.run(x.numpy(), entry="foo.nested"), want)


class Mutating(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.child2buffer = nn.Buffer(torch.ones(2, 3))

    def forward(self, x: Any) -> Any:
        self.child2buffer.add_(x)
        return x - self.child2buffer


class BufferMutation(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.foo = Mutating()
        self.rootparam = nn.Parameter(torch.rand(2, 3))

    def forward(self, x: Any) -> Any:
        return self.foo(x) * self.rootparam


def test_buffer_mutation() -> None:
    # test_unflatten_buffer_mutation: the written buffer is an argument of the
    # module owning it and its new value comes back out through the calls
    model = BufferMutation()
    x = torch.rand(2, 3)
    u = Unflattened(model, (x,))
    assert u.calls() == [("foo", 0, "foo")]
    assert param_attrs(u.functions["foo"]) == [None, "child2buffer"]
    assert len(u.functions["foo"].function_type.outputs) == 2
    got = u.run(*u.weights, x.numpy())
    (y,) = eager(model, (x,))  # mutates model.foo.child2buffer
    assert_close(got, [y, model.foo.child2buffer.numpy()])
    assert str(flatten(clone_module(u.module))) == u.text


class NestedAccess(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.foo = Child2()

    def forward(self, x: Any) -> Any:
        return self.foo(x + self.foo.child2buffer)


def test_nested_access_of_a_submodule_buffer() -> None:
    # test_unflatten_nested_access: the root reads foo's buffer itself
    u = Unflattened(NestedAccess(), (torch.rand(2, 3),)).check()
    assert set(u.functions) == {"forward", "foo"}
    assert u.calls() == [("foo", 0, "foo")]


class SharedSubmodule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layernorm = nn.LayerNorm(10)
        self.sub_net = nn.Sequential(layernorm, nn.ReLU(), layernorm, nn.ReLU())

    def forward(self, x: Any) -> Any:
        return self.sub_net(x)


class Twice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.buffer = nn.Buffer(torch.rand(3, 4))
        self.param = nn.Parameter(torch.rand(3, 4))

    def forward(self, x: Any) -> Any:
        return x + self.buffer + self.param


class AliasedSubmodule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mod2 = Twice()
        self.mod3 = self.mod2
        self.mod1 = Twice()

    def forward(self, x: Any) -> Any:
        return self.mod3(self.mod2(self.mod1(x)))


class ReusedNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layer = nn.LayerNorm([2, 2, 3])
        self.norms = nn.ModuleList([layer, layer, layer])

    def forward(self, x: Any) -> Any:
        for norm in self.norms:
            x = norm(x)
        return x


def test_shared_submodule() -> None:
    # test_unflatten_shared_submodule: sub_net.0 and sub_net.2 are one module
    u = Unflattened(SharedSubmodule(), (torch.rand(10),)).check()
    assert u.calls() == [("sub_net", 0, "sub_net")]
    assert [fqn for fqn, _, _ in u.calls("sub_net")] == ["0", "1", "2", "3"]
    # the two ReLUs are distinct modules with identical graphs: one function
    # (deliberate, see graph_unflatten's docstring: sharing is structural)
    callees = [callee for _, _, callee in u.calls("sub_net")]
    assert callees[1] == callees[3] == "sub_net.1"


def test_submodule_ordering() -> None:
    # test_unflatten_submodule_ordering: mod3 is mod2; calls keep their fqns
    u = Unflattened(AliasedSubmodule(), (torch.rand(3, 4),)).check()
    assert [fqn for fqn, _, _ in u.calls()] == ["mod1", "mod2", "mod3"]


def test_duplicate_placeholder() -> None:
    # test_duplicate_placeholder: one LayerNorm under three names
    u = Unflattened(ReusedNorm(), (torch.rand(1, 2, 2, 3),)).check()
    assert [fqn for fqn, _, _ in u.calls()] == ["norms.0", "norms.1", "norms.2"]


@pytest.mark.parametrize(
    ("model", "args", "caller", "fqns"),
    [
        # test_unflatten_shared_submodule: id(sub_net.0) == id(sub_net.2)
        (SharedSubmodule, (10,), "sub_net", ("0", "2")),
        # test_unflatten_submodule_ordering: mod3 is mod2
        (AliasedSubmodule, (3, 4), "forward", ("mod2", "mod3")),
        # test_duplicate_placeholder: norms.0, .1, .2 are one LayerNorm
        (ReusedNorm, (1, 2, 2, 3), "forward", ("norms.0", "norms.1", "norms.2")),
    ],
)
def test_one_module_object_calls_one_function(
    model: Any, args: tuple[int, ...], caller: str, fqns: tuple[str, ...]
) -> None:
    # the importer records the aliased weights' names (graph.aliases), so
    # the weight lies inside every fqn of the module and reaches each call
    # as a weight: one function for all calls, its weights after x
    u = Unflattened(model(), (torch.rand(*args),)).check()
    callees = {callee for fqn, _, callee in u.calls(caller) if fqn in fqns}
    assert len(callees) == 1
    (callee,) = callees
    assert None not in param_attrs(u.functions[callee])[1:]


class ParamContainers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.param_list = nn.ParameterList()
        self.param_dict = nn.ParameterDict()
        for i in range(2):
            self.param_list.append(nn.Parameter(torch.randn(2, 3)))
            self.param_dict[f"key_{i}"] = nn.Parameter(torch.randn(2, 3))

    def forward(self, x: Any) -> Any:
        for i in range(2):
            x = x + self.param_list[i] + self.param_dict[f"key_{i}"]
        return x


def test_param_list_dict() -> None:
    # test_unflatten_param_list_dict: containers are never called: no modules
    u = Unflattened(ParamContainers(), (torch.randn(2, 3),)).check()
    assert list(u.functions) == ["forward"]
    names = param_attrs(u.functions["forward"])
    assert {"param_list.0", "param_list.1", "param_dict.key_0"} <= set(names)


def test_wrong_input_is_refused() -> None:
    # test_unflatten_wrong_input: a 6x6 input for a 2x3 program
    u = Unflattened(ParamContainers(), (torch.randn(2, 3),))
    with pytest.raises(ValueError, match="2x3"):
        u.run(*u.weights, np.zeros((6, 6), np.float32))


class NestedInputs(nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x[0] + x[1] + y["foo"]


def test_nested_inputs_stay_flat_arguments() -> None:
    # test_fx_trace / nested inputs: a tuple and a dict of tensors become three
    # arguments; with no module call, unflatten changes nothing
    args = ((torch.rand(2, 3), torch.rand(2, 3)), {"foo": torch.rand(2, 3)})
    u = Unflattened(NestedInputs(), args).check()
    assert len(u.functions["forward"].args) == 3
    assert str(u.module) == u.text


class SubSubMod(nn.Module):
    def forward(self, x: Any) -> Any:
        return x * x


class SubMod(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.subsubmod = SubSubMod()

    def forward(self, x: Any) -> Any:
        return x - x


class DoubleNested(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.submod = SubMod()

    def forward(self, x: Any) -> Any:
        return x + self.submod.subsubmod(x)


def test_double_nested_submodule() -> None:
    # test_double_nested_submodule: the root calls submod.subsubmod directly;
    # submod itself is never called, so it has no function
    u = Unflattened(DoubleNested(), (torch.rand(2, 3),)).check()
    assert set(u.functions) == {"forward", "submod.subsubmod"}
    assert u.calls() == [("submod.subsubmod", 0, "submod.subsubmod")]


class LinearLeaf(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x: Any) -> Any:
        return self.linear(x)


class Bar(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.leaf = LinearLeaf()
        self.buffer = nn.Buffer(torch.randn(4, 4))

    def forward(self, x: Any, z: Any) -> Any:
        return self.buffer.sum() + self.leaf(x).sum() + z[0].sum() + z[1].sum()


class Foo(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bar = Bar()

    def forward(self, x: Any, z: Any) -> Any:
        y = self.bar.buffer + x + z[0] + z[1]
        return self.bar(x, z) + y.sum()


def test_container_type() -> None:
    # test_unflatten_container_type: a list argument of a submodule
    args = (torch.randn(4, 4), [torch.randn(4, 4), torch.randn(4, 4)])
    u = Unflattened(Foo(), args).check()
    assert set(u.functions) == {"forward", "bar", "bar.leaf", "bar.leaf.linear"}
    assert u.calls("bar") == [("leaf", 0, "bar.leaf")]
    assert param_attrs(u.functions["bar"])[-2:] == ["leaf.linear.weight",
                                                    "leaf.linear.bias"]  # fmt: skip


class TwoResults(nn.Module):
    def forward(self, x: Any) -> Any:
        return x + x, x * x


class SumsTwoResults(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.submod = TwoResults()

    def forward(self, x: Any) -> Any:
        return x + sum(self.submod(x))


def test_module_with_two_results() -> None:
    # test_unflattened_module_nodes_has_meta_val: every value is typed (the
    # verifier), a module returning a tuple returns two values
    u = Unflattened(SumsTwoResults(), (torch.rand(2, 3),)).check()
    assert len(u.functions["submod"].function_type.outputs) == 2


class TransposeModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 1, 3, stride=2)

    def forward(self, x: Any) -> Any:
        return self.conv(x).transpose(0, 1)


def test_inputs_before_weights() -> None:
    # test_placeholder_and_get_attr_ordering_after_unflattened: placeholder,
    # get_attr, get_attr
    u = Unflattened(TransposeModule(), (torch.randn(2, 3, 8, 8),)).check()
    assert param_attrs(u.functions["conv"]) == [None, "weight", "bias"]


class ConstantTensor(nn.Module):
    def forward(self, x: Any) -> Any:
        return x + torch.tensor(0.1)


class CallsConstantTensor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.submod = ConstantTensor()

    def forward(self, x: Any) -> Any:
        return x + self.submod(x)


def test_constant_tensor_stays_in_its_module() -> None:
    # test_unflatten_constant_tensor
    u = Unflattened(CallsConstantTensor(), (torch.randn(2, 3),)).check()
    assert len(u.functions["submod"].args) == 1  # the constant is not passed


class SkipC(nn.Module):
    def __init__(self, owner: list[Any]) -> None:
        super().__init__()
        self.owner = owner

    def forward(self, x: Any) -> Any:
        return self.owner[0].d(x.cos())


class SkipB(nn.Module):
    def __init__(self, owner: list[Any]) -> None:
        super().__init__()
        self.c = SkipC(owner)

    def forward(self, x: Any) -> Any:
        return self.c(x) + x


class SkipA(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.b = SkipB([self])
        self.d = SubSubMod()

    def forward(self, x: Any) -> Any:
        return self.b(x)


def test_skipped_call_module_is_an_error() -> None:
    # test_unflatten_skipped_call_module (an expected failure in torch): the
    # call chain a -> b -> b.c -> d nests d inside b.c
    flat, _ = fxdsl.from_torch(SkipA(), (torch.randn(3),))
    with pytest.raises(PassFailedException, match="'d' .* is not inside 'b.c'"):
        unflatten(flat)


class Leaf(nn.Module):
    def forward(self, x: Any) -> Any:
        return x + 1


class LeafParent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.leaf = Leaf()

    def forward(self, x: Any) -> Any:
        return self.leaf(x) + 2


class TopLevel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nested = LeafParent()

    def forward(self, x: Any) -> Any:
        return self.nested(x) + 3


def test_nested_leaf() -> None:
    # test_nested_leaf_non_strict (the preserved signature: below)
    u = Unflattened(TopLevel(), (torch.randn(3),)).check()
    assert u.calls() == [("nested", 0, "nested")]
    assert u.calls("nested") == [("leaf", 0, "nested.leaf")]


class BiasAlias(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.randn(4))
        self.m = nn.Linear(4, 4)
        self.m.bias = self.bias

    def forward(self, x: Any) -> Any:
        return self.m(x) + self.bias


def test_simple_alias() -> None:
    # test_simple_alias: the root and m use one bias value
    u = Unflattened(BiasAlias(), (torch.randn(4, 4),)).check()
    forward = u.functions["forward"]
    call = next(op for op in forward.body.walk() if isinstance(op, func.CallOp))
    add = next(iter(call.results[0].uses)).operation
    assert add.operands[1] is call.operands[2]  # m's bias is the root's


class AddConst(nn.Module):
    def forward(self, x: Any, const: Any) -> Any:
        return x + const


class AttrAsInput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.const = nn.Buffer(torch.rand(4, 8))
        self.layers = nn.ModuleList([AddConst() for _ in range(2)])

    def forward(self, x: Any) -> Any:
        for layer in self.layers:
            x = layer(x, self.const)
        return x


def test_attr_as_submodule_input() -> None:
    # test_attr_as_submod_input: identical layers share one function
    u = Unflattened(AttrAsInput(), (torch.randn(4, 8),)).check()
    assert u.calls() == [("layers.0", 0, "layers.0"), ("layers.1", 0, "layers.0")]


# -- repeated calls (test_export.py's test_unflatten_multiple_graphs_*, loop) #


class Dispatch(nn.Module):
    def forward(self, x: Any, add: bool) -> Any:
        return x + 1 if add else x * 2


class CallsDispatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.n = Dispatch()

    def forward(self, x: Any) -> Any:
        for add in (True, False, True, False):
            x = self.n(x, add)
        return x


def test_multiple_graphs_dispatch() -> None:
    # test_unflatten_multiple_graphs_dispatch: one module, two graphs: n and
    # n@1, each call keeps its call index
    u = Unflattened(CallsDispatch(), (torch.randn(3),)).check()
    assert set(u.functions) == {"forward", "n", "n@1"}
    want = [("n", 0, "n"), ("n", 1, "n@1"), ("n", 2, "n"), ("n", 3, "n@1")]
    assert u.calls() == want


class LinearRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: Any) -> Any:
        return self.lin(x).relu()


class Loop(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.n = LinearRelu()

    def forward(self, x: Any) -> Any:
        for _ in range(3):
            x = self.n(x)
        return x


def test_loop_calls_share_one_function() -> None:
    # test_unflatten_loop / test_unflatten_no_unroll: three calls, one graph
    u = Unflattened(Loop(), (torch.randn(2, 3),)).check()
    assert set(u.functions) == {"forward", "n", "n.lin"}
    assert u.calls() == [("n", i, "n") for i in range(3)]
    assert u.calls("n") == [("lin", 0, "n.lin")]
    assert param_attrs(u.functions["n"]) == [None, "lin.weight", "lin.bias"]


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.buf = nn.Buffer(torch.zeros(3))

    def forward(self, x: Any) -> Any:
        self.buf.add_(x)
        return x + self.buf


class CallsCounterTwice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.n = Counter()

    def forward(self, x: Any) -> Any:
        return self.n(self.n(x))


def test_multiple_graphs_state() -> None:
    # test_unflatten_multiple_graphs_state: both calls write n.buf; the
    # second call reads the first one's value, so it has another interface
    # (the buffer is no weight there): n and n@1. (The default import level
    # refuses the second in-place write into the buffer; core ATen has it.)
    model = CallsCounterTwice()
    x = torch.randn(3)
    u = Unflattened(model, (x,), decompose=True)
    assert u.calls() == [("n", 0, "n"), ("n", 1, "n@1")]
    assert param_attrs(u.functions["n"]) == [None, "buf"]
    got = u.run(*u.weights, x.numpy())
    (y,) = eager(model, (x,))
    assert_close(got, [y, model.n.buf.numpy()])
    assert str(flatten(clone_module(u.module))) == u.text


class Keywords(nn.Module):
    def forward(self, x: Any, *, scale: Any, shift: Any = None) -> Any:
        return x * scale + shift


class CallsWithKeywords(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = Keywords()

    def forward(self, x: Any, y: Any) -> Any:
        return self.m(x, scale=y, shift=x)


def test_module_call_with_kwargs() -> None:
    # module call with keyword arguments (test_unflatten_eager's callers)
    u = Unflattened(CallsWithKeywords(), (torch.randn(3), torch.randn(3))).check()
    assert u.calls() == [("m", 0, "m")]
    assert len(u.functions["m"].args) == 2  # x once, though passed twice


# -- preserved call signatures ----------------------------------------------- #


class PreservedChild(nn.Module):
    def forward(self, zx: Any, y: Any) -> Any:
        return {"x": y["key"] + zx[1], "w": y["key"] * zx[1]}


class PreservedParent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nested = PreservedChild()

    def forward(self, x: Any, y: Any) -> Any:
        z = torch.ones_like(x)
        xw = self.nested((z, x), y={"key": y})
        return xw["w"] + z - xw["x"]


class Preserved(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.foo = PreservedParent()
        self.bar = Child2()

    def forward(self, x: Any, y: Any) -> Any:
        return self.bar(self.foo(x, y))


def test_preserved_signature_is_imported() -> None:
    # test_unflatten_preserve_signature, through the importer: the signature
    # torch.export recorded names the values and becomes graph.call_signatures,
    # so the unflattened call has torch's interface without any hand work
    model = Preserved()
    args = (torch.rand(2, 3), torch.rand(2, 3))
    program = torch.export.export(
        model, args, preserve_module_call_signature=("foo.nested",)
    )
    imported = from_exported_program(program)
    module = imported.module
    signature = module.attributes[CALL_SIGNATURES].data["foo.nested"]
    assert signature.data == (("ones_like", "x", "y"), ("add", "mul"))
    unflat = unflatten(clone_module(module))
    nested_function = functions(unflat)["foo.nested"]
    assert arg_names(nested_function) == ["ones_like", "x", "y"]
    assert len(nested_function.function_type.outputs) == 2
    got = fxdsl.run(unflat, *imported.weights, *leaves(args))
    assert_close(got, eager(model, args))


class TakesANumber(nn.Module):
    def forward(self, x: Any, k: int) -> Any:
        return x * k


class PassesANumber(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = TakesANumber()

    def forward(self, x: Any) -> Any:
        return self.m(x, 3) + 1


def test_a_preserved_signature_leaves_numbers_out() -> None:
    # a Python number passed to a preserved call is a constant of the graph:
    # the imported signature has the tensors only
    model, args = PassesANumber(), (torch.rand(3),)
    program = torch.export.export(model, args, preserve_module_call_signature=("m",))
    imported = from_exported_program(program)
    signature = imported.module.attributes[CALL_SIGNATURES].data["m"]
    assert signature.data == (("x",), ("mul",))
    unflat = unflatten(clone_module(imported.module))
    assert arg_names(functions(unflat)["m"]) == ["x"]
    assert_close(fxdsl.run(unflat, *leaves(args)), eager(model, args))


class TwoOut(nn.Module):
    def forward(self, x: Any) -> Any:
        return x.sin(), x.cos()


class UsesOne(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = TwoOut()

    def forward(self, x: Any) -> Any:
        return self.m(x)[0] * 2


def test_a_preserved_signature_naming_dead_code_is_dropped() -> None:
    # the cos the caller never reads is dead: the import drops that call's
    # signature with a warning instead of failing
    model, args = UsesOne(), (torch.rand(3),)
    program = torch.export.export(model, args, preserve_module_call_signature=("m",))
    with pytest.warns(UserWarning, match="preserved signature of 'm' is dropped"):
        imported = from_exported_program(program)
    assert CALL_SIGNATURES not in imported.module.attributes
    unflat = unflatten(clone_module(imported.module))
    assert_close(fxdsl.run(unflat, *leaves(args)), eager(model, args))


def preserve(module: ModuleOp, call: str, values: dict[str, SSAValue],
             inputs: tuple[str, ...], outputs: tuple[str, ...]) -> None:  # fmt: skip
    """Record a signature by hand (the importer records torch.export's: see
    test_preserved_signature_is_imported)."""
    for name, value in values.items():
        set_value_name(value, name)
    module.attributes[CALL_SIGNATURES] = DictionaryAttr(
        {call: SignatureAttr((inputs, outputs))}
    )


def scope_depth(op: Any) -> int:
    scope = op.attributes.get("scope")
    return 0 if scope is None else len(scope.data)


def op_summary(module: ModuleOp) -> list[tuple[str, str, str]]:
    """The ops with their names and scopes, in no order."""
    summary = [(op.name, str(op.attributes.get(NAME)), str(op.attributes.get("scope")))
               for op in module.walk()]  # fmt: skip
    return sorted(summary)


def arg_names(function: func.FuncOp) -> list[str | None]:
    return [arg_attr(function, i, NAME) for i in range(len(function.args))]


def test_preserve_signature() -> None:
    # test_unflatten_preserve_signature: foo.nested gets torch's interface
    # (ones_like, x, y) -> (add, mul); ones_like is unused inside
    model = Preserved()
    args = (torch.rand(2, 3), torch.rand(2, 3))
    flat, weights = fxdsl.from_torch(model, args)
    forward = functions(flat)["forward"]
    nested = [op for op in forward.body.walk() if scope_depth(op) == 2]
    ones = next(op for op in forward.body.walk() if op.name == "graph.full")
    values = {"x": forward.args[0], "y": forward.args[1],
              "ones_like": ones.results[0],
              "add": nested[0].results[0], "mul": nested[1].results[0]}  # fmt: skip
    preserve(flat, "foo.nested", values, ("ones_like", "x", "y"), ("add", "mul"))
    unflat = unflatten(clone_module(flat))
    unflat.verify()
    nested_function = functions(unflat)["foo.nested"]
    assert arg_names(nested_function) == ["ones_like", "x", "y"]
    assert len(nested_function.function_type.outputs) == 2
    want = eager(model, args)
    assert_close(fxdsl.run(unflat, *weights, *leaves(args)), want)
    # flatten restores the names; the constant moves before the call that
    # takes it (the importer placed it after: it is unused inside)
    back = flatten(clone_module(unflat))
    assert op_summary(back) == op_summary(flat)
    assert_close(fxdsl.run(back, *weights, *leaves(args)), want)


class PassesOneThrough(nn.Module):
    def forward(self, x: Any, a: Any, b: Any) -> Any:
        return x + a, b


class PassThroughCaller(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m1 = PassesOneThrough()

    def forward(self, x: Any, y: Any) -> Any:
        a, b = y[:2].sin(), y[2:4].cos()
        out, b_out = self.m1(x, a, b)
        return out * b_out


def test_preserve_with_unused_input() -> None:
    # test_unflatten_preserve_with_unused_input: b is passed through unused
    # and returned (an output that is an input; torch's topk indices are dead
    # code here, so b is a cos that the caller uses)
    model = PassThroughCaller()
    args = (torch.randn(2), torch.randn(5))
    flat, weights = fxdsl.from_torch(model, args)
    forward = functions(flat)["forward"]
    by_name = {op.name: op for op in forward.body.walk()}
    values = {"x": forward.args[0], "a": by_name["graph.sin"].results[0],
              "b": by_name["graph.cos"].results[0],
              "add": by_name["graph.add"].results[0]}  # fmt: skip
    preserve(flat, "m1", values, ("x", "a", "b"), ("add", "b"))
    text = str(flat)
    unflat = unflatten(clone_module(flat))
    m1 = functions(unflat)["m1"]
    assert arg_names(m1) == ["x", "a", "b"]
    assert len(m1.function_type.outputs) == 2
    assert_close(fxdsl.run(unflat, *weights, *leaves(args)), eager(model, args))
    assert str(flatten(clone_module(unflat))) == text


def test_nested_leaf_preserved() -> None:
    # test_nested_leaf_non_strict: preserve_module_call_signature=("nested",)
    model = TopLevel()
    args = (torch.randn(3),)
    flat, weights = fxdsl.from_torch(model, args)
    forward = functions(flat)["forward"]
    inside = [op for op in forward.body.walk() if "scope" in op.attributes]
    values = {"x": forward.args[0], "out": inside[-1].results[0]}
    preserve(flat, "nested", values, ("x",), ("out",))
    text = str(flat)
    unflat = unflatten(clone_module(flat))
    assert arg_names(functions(unflat)["nested"]) == ["x"]
    assert calls(functions(unflat)["nested"]) == [("leaf", 0, "nested.leaf")]
    assert_close(fxdsl.run(unflat, *weights, *leaves(args)), eager(model, args))
    assert str(flatten(clone_module(unflat))) == text
