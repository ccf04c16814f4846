"""The torch.export importer on real models: numerics against torch eager
(reference interpreter and the GPU lowering on the IR emulator), both IR
levels giving the same IR, provenance, and its errors.

torch and transformers are the `fxdsl[torch]` extra: these tests skip where
they are missing, except under CI, which installs them (a missing one fails
there instead of skipping)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import (  # noqa: E402
    ImportedProgram,
    TorchImportError,
    from_exported_program,
    from_torch,
    to_numpy,
)
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.torch_models import (  # noqa: E402
    MODELS,
    ImportCache,
    eager_outputs,
    function_module,
    gpt2,
)

LEVELS = ("default", "core")


@pytest.fixture(scope="module")
def imported() -> ImportCache:
    return ImportCache(MODELS)


def _inputs(example: Any) -> list[np.ndarray]:
    return [to_numpy(a) for a in example[1]]


def _assert_matches_eager(got: Any, example: Any, tolerance: float) -> None:
    want = eager_outputs(example)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(MODELS))
def test_reference_matches_eager(imported: Any, name: str, level: str) -> None:
    example, program = imported[name, level]
    _assert_matches_eager(program.run(*example[1]), example, 1e-5)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(MODELS))
def test_gpu_pipeline_on_the_emulator_matches_eager(
    imported: Any, name: str, level: str
) -> None:
    example, program = imported[name, level]
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    machine = Emulator(lowered)
    got = machine.run("forward", *program.weights, *_inputs(example))
    assert machine.launches > 0
    _assert_matches_eager(got, example, 1e-4)


def _op_names(program: ImportedProgram) -> list[str]:
    (function,) = program.module.body.block.ops
    return [op.name for op in function.walk()]


@pytest.mark.parametrize("name", list(MODELS))
def test_both_levels_give_the_same_ir(imported: Any, name: str) -> None:
    """Decomposed linear, silu and attention are recognised again, and
    view/transpose chains collapse, so the core-ATen graph imports as the
    default one does, op for op."""
    default, core = imported[name, "default"][1], imported[name, "core"][1]
    assert _op_names(core) == _op_names(default)


def test_high_level_ops_survive_the_import(imported: Any) -> None:
    counts = Counter(_op_names(imported["llama", "core"][1]))
    assert counts["graph.linear"] == 2 * 7 + 1  # q k v o gate up down, lm_head
    assert counts["graph.silu"] == 2
    assert counts["graph.attention"] == 2
    # The rotary tables (frequencies x positions, cos, sin) fold at import.
    assert counts["graph.matmul"] == counts["graph.sigmoid"] == 0


def test_folded_causal_mask_becomes_causal(imported: Any) -> None:
    """HF's mask construction (arange, cumsum, index, comparisons) folds;
    the folded causal mask is `causal` on the attention, no operand."""
    (function,) = imported["gpt2", "default"][1].module.body.block.ops
    attention = [op for op in function.walk() if op.name == "graph.attention"]
    assert len(attention) == 2
    assert all(op.causal is not None and len(op.operands) == 3 for op in attention)
    names = {op.name for op in function.walk()}
    assert not names & {"graph.arange", "graph.cumsum", "graph.index"}


def test_parameters_are_arguments_with_fqns(imported: Any) -> None:
    example, program = imported["gpt2", "default"]
    (function,) = program.module.body.block.ops
    params = [
        attrs.data["graph.param"].data
        for attrs in function.arg_attrs.data
        if "graph.param" in attrs.data
    ]
    model = example[0]
    assert params[:3] == [
        "transformer.wte.weight",
        "transformer.wpe.weight",
        "transformer.h.0.ln_1.weight",
    ]
    assert len(params) == len(program.weights)
    state = dict(model.named_parameters(remove_duplicate=False))
    for name, array in zip(params, program.weights, strict=True):
        np.testing.assert_array_equal(array, state[name].detach().numpy())
    assert program.input_names == ["input_ids"]


def test_scope_follows_nn_module_stack(imported: Any) -> None:
    (function,) = imported["gpt2", "default"][1].module.body.block.ops
    linear = next(op for op in function.walk() if op.name == "graph.linear")
    frames = linear.attributes["scope"].data
    assert [f[0] for f in frames] == ["lm_head"]
    layer_norms = [op for op in function.walk() if op.name == "graph.layer_norm"]
    fqns = [op.attributes["scope"].data[-1][0] for op in layer_norms]
    assert fqns[:2] == ["transformer.h.0.ln_1", "transformer.h.0.ln_2"]


class _Twice(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x: Any) -> Any:
        return self.lin(torch.relu(self.lin(x)))


def test_repeated_module_call_gets_the_next_call_index() -> None:
    program = from_torch(_Twice(), (torch.randn(2, 4),))
    (function,) = program.module.body.block.ops
    frames = [
        op.attributes["scope"].data
        for op in function.walk()
        if op.name == "graph.linear"
    ]
    assert frames == [(("lin", 0, "torch.nn.modules.linear.Linear"),)] + [
        (("lin", 1, "torch.nn.modules.linear.Linear"),)
    ]


class _Unsupported(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return torch.hash_tensor(x * 2)


def test_unsupported_op_names_the_op_node_and_source_line() -> None:
    with pytest.raises(TorchImportError) as error:
        from_torch(_Unsupported(), (torch.randn(3, 5),))
    message = str(error.value)
    assert "aten.hash_tensor.default" in message
    assert "%hash_tensor" in message
    assert "no graph-dialect mapping" in message
    assert "test_torch_export.py:" in message
    assert "torch.hash_tensor(x * 2)" in message


def test_program_run_counts_and_names_the_users_inputs(imported: Any) -> None:
    """The weights lead the function's arguments, but the user passes only
    the inputs: errors count and name those."""
    (_, (x,), _), program = imported["mlp", "default"]
    assert len(program.weights) == 6
    (name,) = program.input_names
    with pytest.raises(
        ValueError, match=rf"^input 0 \(%{name}\): expected tensor<4x16"
    ):
        program.run(np.zeros((4, 3), np.float32))
    with pytest.raises(
        ValueError, match=rf"^the program takes 1 input\(s\) \(%{name}\), got 2$"
    ):
        program.run(x, x)
    assert program.run(x)[0].shape == (4, 8)


def test_dynamic_shapes_ask_for_static_ones() -> None:
    dim = torch.export.Dim("batch", min=2, max=64)
    program = torch.export.export(
        torch.nn.Linear(4, 4), (torch.randn(3, 4),), dynamic_shapes=({0: dim},)
    )
    with pytest.raises(TorchImportError, match="static shapes"):
        from_exported_program(program)


def test_unpacks_as_module_and_weights(imported: Any) -> None:
    example, program = imported["mlp", "default"]
    module, weights = program
    (y,) = fxdsl.run(module, *weights, *_inputs(example))
    _assert_matches_eager([y], example, 1e-5)


# --------------------------------------------------------------------------- #
# 12-layer GPT-2: dedup, unflatten, and the fused attention kernel
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def gpt2_12() -> tuple[Any, Any, ImportedProgram]:
    model, args, kwargs = gpt2(layers=12)
    exported = torch.export.export(model, args, kwargs, strict=False)
    return (model, args, kwargs), exported, from_exported_program(exported)


def test_dedup_outlines_the_12_layers_into_one_function(gpt2_12: Any) -> None:
    from xdsl.dialects import func

    example, _, program = gpt2_12
    module = fxdsl.apply(program.module.clone(), "graph-dedup")
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    assert len(functions) == 2
    calls = Counter(
        op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp)
    )
    assert calls == {functions[1].sym_name.data: 12}
    (y,) = fxdsl.run(module, *program.weights, *_inputs(example))
    _assert_matches_eager([y], example, 1e-5)


def _our_module_tree(module: Any) -> set[str]:
    """Fully qualified names of the module calls graph-unflatten built."""
    from xdsl.dialects import func

    functions = {
        op.sym_name.data: op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp)
    }
    found: set[str] = set()

    def visit(function: Any, prefix: str) -> None:
        for op in function.body.walk():
            if isinstance(op, func.CallOp) and "graph.module" in op.attributes:
                relative = op.attributes["graph.module"].data[0][0]
                fqn = f"{prefix}.{relative}" if prefix else relative
                found.add(fqn)
                visit(functions[op.callee.string_value()], fqn)

    visit(functions["forward"], "")
    return found


_NO_OPS = {"dropout", "clone", "alias", "_assert_tensor_metadata"}


def _torch_module_tree(exported: Any) -> set[str]:
    """Modules of torch.export.unflatten that own a compute op, directly or
    through a submodule."""
    unflat = torch.export.unflatten(exported)
    owners: set[str] = set()
    for fqn, module in unflat.named_modules():
        graph = getattr(module, "graph", None)
        if not fqn or graph is None:
            continue
        for node in graph.nodes:
            if node.op == "call_function" and node.target.__name__.split(".")[
                0
            ] not in (_NO_OPS | {"getitem"}):
                owners.add(fqn)
    called = {
        fqn
        for node in exported.graph.nodes
        for fqn, _ in (node.meta.get("nn_module_stack") or {}).values()
    }
    parts = [fqn.split(".") for fqn in owners]
    ancestors = {".".join(p[:n]) for p in parts for n in range(1, len(p))}
    return owners | (ancestors & called)


def test_unflatten_rebuilds_torch_export_unflatten_tree(gpt2_12: Any) -> None:
    example, exported, program = gpt2_12
    module = fxdsl.apply(program.module.clone(), "graph-unflatten")
    ours = _our_module_tree(module)
    theirs = _torch_module_tree(exported)
    assert "transformer.h.11.mlp.c_proj" in theirs
    assert ours == theirs
    (y,) = fxdsl.run(module, *program.weights, *_inputs(example))
    _assert_matches_eager([y], example, 1e-5)


def test_hf_attention_reaches_the_fused_attention_kernel() -> None:
    """GPT-2 at B=8, T=512 (4 heads: 16384 query rows, the default
    `min-rows` of graph-fuse-attention): the folded causal mask lets the
    attention lower to one attention kernel."""
    from xdsl.dialects import gpu

    model, args, kwargs = gpt2(layers=1, batch=8, length=512)
    program = from_torch(model, args, kwargs)
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    kernels = [k.sym_name.data for k in lowered.walk() if isinstance(k, gpu.FuncOp)]
    assert [k for k in kernels if k.endswith("_attention")] == ["forward_3_attention"]


def test_docs_table_lists_every_mapped_overload() -> None:
    """docs/torch-import.md's ATen table and the importer's table agree, and
    every key names an overload torch has (no typos)."""
    import re
    from pathlib import Path

    from fxdsl.frontends.aten_ops import ATEN, FLOAT_ELEMENTWISE

    doc = (Path(__file__).parents[2] / "docs" / "torch-import.md").read_text()
    table = doc.split("## ATen → graph ops")[1].split("\n## ")[0]
    found = re.findall(r"`((?:aten|prims|torchvision)\.[\w.]+)`", table)
    assert set(found) == set(ATEN)
    # Inductor's module registers prims.fma (what Dynamo makes of addcmul_),
    # which other tests import first; alone, this test must too
    from torch._inductor import inductor_prims  # noqa: F401

    for name in ATEN:
        namespace, packet, overload = name.split(".")
        if namespace == "torchvision" and not hasattr(torch.ops.torchvision, packet):
            continue  # registered by `import torchvision`: not in this environment
        ops = getattr(torch.ops, namespace)
        assert overload in getattr(ops, packet).overloads(), name
    # the float functions' row names each one the dialect declares (but
    # those with a handler of their own, in the rows above)
    row = next(line for line in table.splitlines() if "FLOAT_ELEMENTWISE" in line)
    listed = row.split("op declarations):")[1].split("|")[0]
    own = [n for n in FLOAT_ELEMENTWISE if f"aten.{n}.default" not in ATEN]
    assert [n.strip() for n in listed.split(",")] == own
    for name in FLOAT_ELEMENTWISE:
        assert hasattr(torch.ops.aten, name), name


def test_docs_complex_table_lists_every_complex_handler() -> None:
    """docs/torch-import.md's complex table names each of `aten_complex`'s
    handlers, and each is an overload torch has."""
    import re
    from pathlib import Path

    from fxdsl.frontends.aten_complex import HANDLERS

    doc = (Path(__file__).parents[2] / "docs" / "torch-import.md").read_text()
    table = doc.split("## Complex tensors")[1].split("\n## ")[0]
    assert set(re.findall(r"`((?:aten|prims)\.[\w.]+)`", table)) == set(HANDLERS)
    for name in HANDLERS:
        namespace, packet, overload = name.split(".")
        assert overload in getattr(getattr(torch.ops, namespace), packet).overloads()


class _F16Clamp(torch.nn.Module):
    """T5's guard against f16 overflow: clamp by a 0-d tensor bound, chosen
    by whether any activation is infinite."""

    def forward(self, x: Any) -> Any:
        limit = torch.finfo(x.dtype).max
        bound = torch.where(torch.isinf(x).any(), limit - 1000, limit)
        return torch.clamp(x * 2.0, min=-bound, max=bound), torch.isinf(x)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_tensor_bounded_clamp_and_isinf_import(dtype: Any) -> None:
    x = torch.tensor([1.0, -3e4, 4e4, float("inf"), float("nan"), -2.5], dtype=dtype)
    program = from_torch(_F16Clamp(), (x,))
    got = fxdsl.run(program.module, *program.weights, x.numpy())
    want = _F16Clamp()(x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w.numpy(), strict=True)


class _Scalars(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x * 0.1 + 0.3, x / 2.8284271247461903, 1.7 - x, 0.3 * x, x - 0.3


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_low_precision_ops_with_scalars_round_as_torch(dtype: Any) -> None:
    """torch multiplies and divides a bf16/f16 tensor by a Python scalar in
    f32 with the scalar unrounded; its CPU add and sub round the scalar to
    the tensor's dtype first. Each result is bit-exact."""
    x = torch.randn(512, generator=torch.Generator().manual_seed(0)).to(dtype)
    program = from_torch(_Scalars(), (x,))
    got = fxdsl.run(program.module, *program.weights, to_numpy(x))
    for g, w in zip(got, _Scalars()(x), strict=True):
        np.testing.assert_array_equal(g, to_numpy(w), strict=True)


def test_a_model_torch_export_refuses_is_a_torch_import_error() -> None:
    """A data-dependent branch (GaussianNLLLoss validates its variance so):
    torch.export's failure reaches the caller as a TorchImportError naming
    it, torch's exception kept as the cause."""
    loss = torch.nn.GaussianNLLLoss()
    args = (torch.randn(4, 3), torch.randn(4, 3), torch.rand(4, 1) + 0.1)
    with pytest.raises(TorchImportError, match="torch.export could not export") as info:
        from_torch(function_module(loss), args)
    assert info.value.__cause__ is not None
