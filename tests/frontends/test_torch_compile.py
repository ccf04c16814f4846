"""`torch.compile(model, backend="fxdsl")` on the CPU: real models match
eager (inference and a GPT-2 training step), ops without a mapping fall back
to torch with the reason logged, the dry-run report, and the options that
shape the partition. Skips without torch/transformers, except under CI."""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")
need("transformers")

import torch.utils._pytree as pytree  # noqa: E402

from fxdsl.frontends import torch_compile  # noqa: E402
from fxdsl.frontends.torch_islands import Plan  # noqa: E402
from fxdsl.testing.torch_models import (  # noqa: E402
    BACKEND_MODELS,
    eager_outputs,
    gpt2,
    mlp,
    seeded,
    with_unmapped,
)

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _leaves(returned: Any) -> list[np.ndarray]:
    if hasattr(returned, "to_tuple"):
        returned = returned.to_tuple()
    return [
        t.detach().numpy()
        for t in pytree.tree_leaves(returned)
        if isinstance(t, torch.Tensor)
    ]


def _compiled_outputs(example: Any, options: dict[str, Any] | None = None) -> Any:
    model, args, kwargs = example
    compiled = torch.compile(model, backend="fxdsl", options=options)
    with torch.no_grad():
        return _leaves(compiled(*args, **kwargs))


@pytest.mark.parametrize("name", list(BACKEND_MODELS))
def test_models_match_eager(name: str) -> None:
    example = BACKEND_MODELS[name]()
    got, want = _compiled_outputs(example), eager_outputs(example)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_inference_mode_takes_the_inference_path() -> None:
    model, args, _ = mlp()
    compiled = torch.compile(model, backend="fxdsl")
    with torch.inference_mode():
        got = compiled(*args)
    np.testing.assert_allclose(got.numpy(), model(*args).detach().numpy(), atol=1e-6)


def test_unsupported_op_falls_back_with_the_reason_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    example = with_unmapped()
    with caplog.at_level(logging.INFO, logger="fxdsl.torch_compile"):
        got = _compiled_outputs(example)
    np.testing.assert_allclose(got[0], eager_outputs(example)[0], atol=1e-5)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "aten.special_airy_ai.default runs in torch" in warnings[0]
    assert "no graph-dialect mapping" in warnings[0]
    assert "torch_models.py" in warnings[0]  # the source line of the call
    # Once per op kind: a second model with the same op logs nothing new.
    caplog.clear()
    torch._dynamo.reset()
    with caplog.at_level(logging.WARNING, logger="fxdsl.torch_compile"):
        _compiled_outputs(with_unmapped(batch=8))
    assert not caplog.records


def test_dryrun_prints_the_partition_report(capsys: pytest.CaptureFixture[str]) -> None:
    example = with_unmapped()
    got = _compiled_outputs(example, {"dryrun": True})
    np.testing.assert_allclose(got[0], eager_outputs(example)[0], atol=1e-6)
    report = capsys.readouterr().out
    # labelled: which graph, Dynamo's graph and kind, its first source line
    assert re.match(
        r"\[graph_\d+, Dynamo graph \d+, inference, at .*torch_models.py:\d+: .*\]\n"
        "fxdsl partition report\n",
        report,
    )
    numbers = re.search(
        r"(\d+) operators, (\d+) supported \(([\d.]+) % coverage\), (\d+) compiled",
        report,
    )
    assert numbers is not None
    total, supported, coverage, compiled = numbers.groups()
    assert int(supported) == int(total) - 1  # only airy_ai has no mapping
    assert float(coverage) == pytest.approx(100 * int(supported) / int(total), abs=0.01)
    assert int(compiled) <= int(supported)
    assert (
        "%special_airy_ai aten.special_airy_ai.default: aten.special_airy_ai.default has no"
        in report
    )
    assert "torch_models.py" in report
    assert "torch.special.airy_ai(" in report
    # The island before airy_ai (3 nodes) is below the default min_block_size 5.
    assert "1 fxdsl island(s), sizes in fx nodes: 6\n" in report


def test_dryrun_labels_each_graph_of_a_graph_break(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fn(x: Any) -> Any:
        y = torch.relu(x * 2 + 1)
        torch._dynamo.graph_break()
        return (y.sum(-1) * 4).exp()

    torch.compile(fn, backend="fxdsl", options={"dryrun": True})(torch.randn(3, 4))
    report = capsys.readouterr().out
    titles = re.findall(r"^\[(.*)\]\nfxdsl partition report$", report, re.M)
    assert len(titles) == 2
    assert "y = torch.relu(x * 2 + 1)" in titles[0]
    assert "return (y.sum(-1) * 4).exp()" in titles[1]
    first, second = (int(re.search(r"Dynamo graph (\d+)", t)[1]) for t in titles)
    assert second == first + 1


def test_dryrun_labels_the_forward_and_the_backward(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, args, _ = mlp()
    compiled = torch.compile(model, backend="fxdsl", options={"dryrun": True})
    compiled(*args).sum().backward()
    titles = re.findall(
        r"^\[(.*)\]\nfxdsl partition report$", capsys.readouterr().out, re.M
    )
    kinds = [re.search(r"Dynamo graph \d+, (\w+)", t)[1] for t in titles]
    assert kinds == ["forward", "backward"]


def test_dryrun_to_a_file(tmp_path: Any) -> None:
    path = tmp_path / "report.txt"
    _compiled_outputs(with_unmapped(), {"dryrun": str(path)})
    text = path.read_text()
    assert text.startswith("[graph_")
    assert "fxdsl partition report" in text


def _plan_of(example: Any, **options: Any) -> Plan:
    """The backend's plan of the example's inference graph."""
    plans: list[Plan] = []
    real_plan = torch_compile.plan

    def spy(*args: Any, **kwargs: Any) -> Plan:
        plans.append(real_plan(*args, **kwargs))
        return plans[-1]

    torch_compile.plan = spy  # type: ignore[assignment]
    try:
        got = _compiled_outputs(example, options)
    finally:
        torch_compile.plan = real_plan  # type: ignore[assignment]
    np.testing.assert_allclose(got[0], eager_outputs(example)[0], atol=1e-5)
    (found,) = plans
    return found


def test_min_block_size_sends_small_islands_to_torch() -> None:
    every = _plan_of(with_unmapped(), min_block_size=1)
    assert sorted(len(n) for n in every.islands.values()) == [3, 6]
    assert list(every.fallbacks) == ["special_airy_ai"]
    # The island after airy_ai (reshape, add, tanh, mul, add, linear: 6 nodes)
    # stays; the one before it (linear, gelu, reshape) goes back to torch,
    # and with it the weight's transpose its linear had absorbed.
    four = _plan_of(with_unmapped(), min_block_size=4)
    assert [len(n) for n in four.islands.values()] == [6]
    assert sorted(four.fallbacks) == [
        "addmm",
        "gelu",
        "permute",
        "special_airy_ai",
        "view",
    ]
    reasons = {r for _, r, _ in four.fallbacks.values()}
    assert "in an island of 3 node(s), below min_block_size=4" in reasons
    assert four.supported == every.supported == every.total - 1
    assert four.compiled == every.compiled - 4
    none = _plan_of(with_unmapped(), min_block_size=100)
    assert not none.islands
    assert none.compiled == none.total - len(none.fallbacks)


def test_a_small_graph_compiles_whole() -> None:
    """An island below min_block_size that is the whole graph stays in
    fxdsl (there is no torch op to spare a crossing); beside a torch op, an
    island of the same size goes to torch."""
    import torch

    small = seeded(lambda: torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()))
    whole = _plan_of((small, (torch.randn(2, 4),), {}))
    assert not whole.fallbacks
    assert len(whole.islands) == 1
    assert whole.compiled == whole.total < 5
    beside_unmapped = _plan_of(with_unmapped(), min_block_size=whole.total + 2)
    assert "special_airy_ai" in beside_unmapped.fallbacks
    assert "gelu" in beside_unmapped.fallbacks


def test_torch_executed_ops_stay_in_torch() -> None:
    plan = _plan_of(mlp(), min_block_size=1, torch_executed_ops={"aten.gelu.default"})
    assert [t for t, _, _ in plan.fallbacks.values()] == ["aten.gelu.default"]
    assert len(plan.islands) == 2  # split at the gelu
    packet = _plan_of(mlp(), min_block_size=1, torch_executed_ops=[torch.ops.aten.gelu])
    assert [t for t, _, _ in packet.fallbacks.values()] == ["aten.gelu.default"]
    assert len(_plan_of(mlp(), min_block_size=1).islands) == 1


def test_partitioned_ir_is_dumped(tmp_path: Any) -> None:
    _compiled_outputs(with_unmapped(), {"dump_ir": str(tmp_path), "min_block_size": 1})
    (path,) = tmp_path.glob("graph_*.mlir")
    text = path.read_text()
    assert "func.call @aten.special_airy_ai.default" in text
    assert 'torch.node = "special_airy_ai"' in text
    assert text.count("func.call @fused_") == 2
    assert "func.func private @aten.special_airy_ai.default" in text
    # Dynamo's module stack ("L['self'].up", <class Linear>) reads as export's.
    assert '#graph.scope<("up", 0, "torch.nn.modules.linear.Linear")>' in text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_blocksize": 2}, "unknown option(s) min_blocksize"),
        ({"device": "tpu"}, "device must be 'cpu' or 'cuda'"),
        ({"min_block_size": 0}, "min_block_size must be an integer >= 1"),
        (
            {"torch_executed_ops": {"aten.nosuch.default"}},
            "torch_executed_ops names 'aten.nosuch.default', which is no ATen operator",
        ),
        (
            {"torch_executed_ops": ["aten.gelu.nosuch"]},
            "'aten.gelu.nosuch', which is no overload of aten.gelu (it has: default,",
        ),
        (
            {"torch_executed_ops": "aten.gelu.default"},
            "torch_executed_ops must be a collection of ATen overloads",
        ),
        ({"dryrun": 3}, "dryrun must be True, False or a path, got 3"),
        ({"cuda_graph": "yes"}, "cuda_graph must be True or False, got 'yes'"),
        ({"dump_ir": 1}, "dump_ir must be a folder, got 1"),
        ({"fallback_random": "yes"}, "fallback_random must be True or False"),
    ],
)
def test_bad_options_are_clear_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        torch_compile.Options.parse(options)
    model, args, _ = mlp()
    with pytest.raises(Exception, match=re.escape(message)):
        torch.compile(model, backend="fxdsl", options=options)(*args)


def test_a_result_in_an_operands_memory_is_that_operand() -> None:
    cache = torch.zeros(2, 3, dtype=torch.bfloat16)
    row = cache[0]  # another operand at the same address, another shape
    bits = cache.view(torch.uint16)
    pointers = {cache.data_ptr(): 0}
    same = torch.from_dlpack(bits)  # as the executor hands a donated buffer back
    assert torch_compile.aliased_operand(same, [cache], pointers) is cache
    assert torch_compile.aliased_operand(same, [row, cache], pointers) is cache
    other = bits.clone()
    assert torch_compile.aliased_operand(other, [cache], pointers) is None
    view = bits[:1]  # same address, another shape: not the operand
    assert torch_compile.aliased_operand(view, [cache], pointers) is None
    values = same.view(torch.bfloat16)  # bf16 comes back as bits, not values
    assert torch_compile.aliased_operand(values, [cache], pointers) is None


def test_reduce_overhead_mode_means_cuda_graphs() -> None:
    assert torch_compile.Options.parse(None, "reduce-overhead").cuda_graph
    assert not torch_compile.Options.parse(None, "default").cuda_graph
    explicit = torch_compile.Options.parse({"cuda_graph": False}, "reduce-overhead")
    assert not explicit.cuda_graph
    # Inductor's autotuning modes: no autotuner here, CUDA graphs as there
    assert torch_compile.Options.parse(None, "max-autotune").cuda_graph
    assert not torch_compile.Options.parse(
        None, "max-autotune-no-cudagraphs"
    ).cuda_graph
    with pytest.raises(ValueError, match="mode must be one of None, default"):
        torch_compile.Options.parse(None, "fastest")
    # on the CPU the modes compile and run as the default does
    model, args, _ = mlp()
    for mode in ("reduce-overhead", "max-autotune"):
        torch._dynamo.reset()
        with torch.no_grad():
            got = torch.compile(model, backend="fxdsl", mode=mode)(*args)
            np.testing.assert_allclose(
                got.numpy(), model(*args).numpy(), rtol=1e-5, atol=1e-6
            )


def test_new_shapes_recompile_and_match() -> None:
    model, _, _ = mlp()
    compiled = torch.compile(model, backend="fxdsl", dynamic=False)
    with torch.no_grad():
        for batch in (2, 3, 2):
            x = torch.randn(batch, 16)
            np.testing.assert_allclose(
                compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6
            )


def test_gpt2_training_step_matches_eager() -> None:
    """Loss, the gradient of every parameter, and the parameters after one
    SGD step (dropout off: eager and compiled draw different masks)."""
    model, (ids,), _ = gpt2(layers=2)
    model.train()
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    reference = copy.deepcopy(model)

    def step(net: Any, run: Any) -> tuple[float, dict[str, Any]]:
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        loss = run(ids, labels=ids, use_cache=False).loss
        loss.backward()
        grads = {n: p.grad.clone() for n, p in net.named_parameters()}
        optimizer.step()
        return float(loss), grads

    loss, grads = step(model, torch.compile(model, backend="fxdsl"))
    want_loss, want_grads = step(reference, reference)
    assert loss == pytest.approx(want_loss, rel=1e-6)
    assert set(grads) == set(want_grads)
    for name, grad in want_grads.items():
        torch.testing.assert_close(grads[name], grad, rtol=1e-4, atol=1e-5, msg=name)
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6, msg=name)


def test_backend_is_registered_by_entry_point() -> None:
    from importlib.metadata import entry_points

    (entry,) = [
        e for e in entry_points(group="torch_dynamo_backends") if e.name == "fxdsl"
    ]
    assert entry.load() is torch_compile.fxdsl_backend
    assert "fxdsl" in torch._dynamo.list_backends()


def test_dynamic_true_specialises_per_shape(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph dialect has static shapes: a shape-generic graph from
    `dynamic=True` is compiled once per concrete input shape, and every call
    runs in fxdsl, not in torch."""
    runs: list[int] = []
    real_call = torch_compile._Runner.__call__

    def counted(self: Any, *args: Any) -> Any:
        runs.append(1)
        return real_call(self, *args)

    monkeypatch.setattr(torch_compile._Runner, "__call__", counted)
    model, _, _ = mlp()
    compiled = torch.compile(model, backend="fxdsl", dynamic=True)
    with caplog.at_level(logging.INFO, logger="fxdsl.torch_compile"), torch.no_grad():
        for batch in (2, 3, 5, 3):
            x = torch.randn(batch, 16)
            np.testing.assert_allclose(
                compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6
            )
    messages = [r.getMessage() for r in caplog.records]
    assert any("specialised a dynamic graph" in m for m in messages)
    assert not [m for m in messages if "runs in torch" in m]
    assert len(runs) == 4


def test_a_shape_generic_graph_keeps_its_last_shapes_compiled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Generation with a growing cache meets a new shape every step: only
    the last `SPECIALISATIONS` shapes stay compiled (each holds its device
    buffers), and a shape seen again after that compiles again."""
    monkeypatch.setattr(torch_compile, "SPECIALISATIONS", 2)
    built: list[int] = []
    real = torch_compile._Specialising._specialise

    def counted(self: Any, args: Any) -> Any:
        # the input's batch: the (B, 16) argument beside the (64, 16) weight
        shapes = [tuple(a.shape) for a in args if hasattr(a, "shape")]
        built.append(next(s[0] for s in shapes if s[1:] == (16,) and s[0] != 64))
        return real(self, args)

    monkeypatch.setattr(torch_compile._Specialising, "_specialise", counted)
    model, _, _ = mlp()
    compiled = torch.compile(model, backend="fxdsl", dynamic=True)
    with torch.no_grad():
        for batch in (2, 3, 3, 5, 3, 2):
            x = torch.randn(batch, 16)
            np.testing.assert_allclose(
                compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6
            )
    # 3 is used again before 5 comes, so 2 goes; 3 stays for its next call
    assert built == [2, 3, 5, 2]


def test_an_int_that_decides_no_tensor_compiles_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An int input only counted on and returned (HF's sliding-window cache
    length) does not specialise the graph: one compile serves every value,
    and the int returned is this call's; an int that scales a tensor does."""

    def step(x: Any, n: int) -> Any:
        return x * 2 + 1, n + 1

    def scaled(x: Any, n: int) -> Any:
        return x * n, n * 2

    x = torch.randn(4, 8)
    for function, specialisations in ((step, 1), (scaled, 3)):
        torch._dynamo.reset()
        compiled = torch.compile(function, backend="fxdsl", dynamic=True)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="fxdsl.torch_compile"):
            for n in (3, 4, 5):
                got, count = compiled(x, n)
                want, want_count = function(x, n)
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
                assert count == want_count
        messages = [r.getMessage() for r in caplog.records]
        assert sum("specialised a dynamic graph" in m for m in messages) == (
            specialisations
        ), function.__name__
        assert not [m for m in messages if "runs in torch" in m]


@pytest.mark.gpu
def test_cuda_islands_follow_torchs_current_stream() -> None:
    """On a side stream, with work queued before and after: the result is
    right only if fxdsl's kernels run in order on torch's stream."""
    model, (x,), _ = mlp(batch=256)
    model = model.cuda()
    compiled = torch.compile(model, backend="fxdsl", options={"device": "cuda"})
    with torch.no_grad():  # on the default stream first: numerics, not order
        torch.testing.assert_close(
            compiled(x.cuda()), model(x.cuda()), rtol=1e-4, atol=1e-4
        )
    side = torch.cuda.Stream()
    with torch.no_grad(), torch.cuda.stream(side):
        big = x.cuda().repeat(64, 1)[: x.shape[0]]  # queued before
        y = compiled(big * 1.0)
        z = y + 1.0  # queued after
    side.synchronize()
    want = model(x.cuda()) + 1.0
    torch.testing.assert_close(z, want, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_held_weights_and_host_scalars_on_gpu() -> None:
    """Weights are converted once and held across calls (`DeviceOperands`):
    a write into one between calls must still be read, and a CPU scalar
    tensor beside CUDA ones (which DLPack cannot take) is copied over."""
    model, (x,), _ = mlp(batch=32)
    model, x = model.cuda(), x.cuda()
    compiled = torch.compile(model, backend="fxdsl", options={"device": "cuda"})
    with torch.no_grad():
        for _ in range(3):
            compiled(x)
        for parameter in model.parameters():
            parameter.mul_(0.5)  # in place: same tensors, same memory
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)

    def scaled(a: Any, s: Any) -> Any:
        return torch.relu(a) * s + 1.0

    scale = torch.tensor(3.0)  # on the host
    got = torch.compile(scaled, backend="fxdsl", options={"device": "cuda"})(x, scale)
    torch.testing.assert_close(got, scaled(x, scale))


def _mlp_of(layers: int) -> Any:
    widths = [16] + [64] * (layers - 1) + [16]
    modules: list[Any] = []
    for i in range(layers):
        modules += [torch.nn.GELU()] if i else []
        modules.append(torch.nn.Linear(widths[i], widths[i + 1]))
    return torch.nn.Sequential(*modules)


@pytest.mark.parametrize("grad", [False, True], ids=["inference", "with-grad"])
@pytest.mark.parametrize("layers", [2, 3], ids=["readme-example", "3-layer-mlp"])
def test_an_mlp_compiles_whole_at_the_default_min_block_size(
    layers: int, grad: bool
) -> None:
    """The README's example (Linear, GELU, Linear) and a 3-layer MLP. With
    gradients on, AOTAutograd's forward also returns each weight's
    transpose for the backward: a 1-node island of its own, which under
    min_block_size=5 took the rest of the graph to torch with it (0 %
    compiled); weight-only views now join the island that reads the weight."""
    torch.manual_seed(0)
    model, x = _mlp_of(layers), torch.randn(8, 16)
    plans: list[Plan] = []
    real_plan = torch_compile.plan

    def spy(*args: Any, **kwargs: Any) -> Plan:
        plans.append(real_plan(*args, **kwargs))
        return plans[-1]

    torch_compile.plan = spy  # type: ignore[assignment]
    try:
        with torch.set_grad_enabled(grad):
            got = torch.compile(model, backend="fxdsl")(x)
    finally:
        torch_compile.plan = real_plan  # type: ignore[assignment]
    np.testing.assert_allclose(
        got.detach().numpy(), model(x).detach().numpy(), atol=1e-5
    )
    (found,) = plans
    assert not found.fallbacks
    assert found.compiled == found.total
    assert len(found.islands) == 1


class _Unconnected(torch.nn.Module):
    """`broadcast_tensors`: four `expand`s that share no value, each a part
    of its own for the partitioner."""

    def forward(self, *tensors: Any) -> Any:
        return torch.broadcast_tensors(*tensors)


def test_unconnected_parts_of_a_graph_fxdsl_takes_whole_are_one_island() -> None:
    """Each part alone is under min_block_size; while fxdsl takes every
    node they are the whole graph, one island (they all went to torch)."""
    shapes = [(3, 1, 2), (1, 4, 1), (2,), (3, 4, 1)]
    tensors = tuple(torch.randn(*s) for s in shapes)
    found = _plan_of((_Unconnected(), tensors, {}))
    assert not found.fallbacks
    assert found.compiled == found.total == 4
    assert [len(n) for n in found.islands.values()] == [4]


class _DataDependent(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return torch.masked_select(x.sin(), x > 0) * 2


def test_data_dependent_sizes_run_in_torch_with_the_reason(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """`masked_select`'s size depends on values: no specialisation makes the
    graph static (it specialised itself forever: RecursionError). It and
    the product reading it run in torch, the rest in fxdsl; the log and the
    dry-run report say why."""
    from fxdsl.frontends.torch_nodes import DATA_DEPENDENT_REASON

    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    options = {"min_block_size": 1}
    try:
        x = torch.randn(4, 5)
        with caplog.at_level(logging.WARNING, logger="fxdsl.torch_compile"):
            got = torch.compile(_DataDependent(), backend="fxdsl", options=options)(x)
        torch._dynamo.reset()
        dry = {**options, "dryrun": True}
        torch.compile(_DataDependent(), backend="fxdsl", options=dry)(x)
    finally:
        torch._dynamo.config.capture_dynamic_output_shape_ops = False
    torch.testing.assert_close(got, _DataDependent()(x))
    why = f"(%masked_select: {DATA_DEPENDENT_REASON})"
    assert why in caplog.text
    report = capsys.readouterr().out
    assert "  1 fxdsl island(s), sizes in fx nodes: 2\n" in report  # sin, gt
    assert (
        f"    %masked_select aten.masked_select.default: {DATA_DEPENDENT_REASON}"
        in report
    )
    assert f"    %mul aten.mul.Tensor: {DATA_DEPENDENT_REASON}" in report


class _Empty(torch.nn.Module):
    """An empty result: the import makes it a constant outside any island."""

    def forward(self, x: Any) -> Any:
        return x.repeat(0, 2), x.sin()


def test_a_constant_result_outside_every_island_is_returned() -> None:
    x = torch.randn(3, 4)
    found = _plan_of((_Empty(), (x,), {}))
    assert found.compiled == found.total
    got = torch.compile(_Empty(), backend="fxdsl")(x)
    want = _Empty()(x)
    assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in want]
    torch.testing.assert_close(got[1], want[1])


class _DrawsOnly(torch.nn.Module):
    def forward(self) -> Any:
        return torch.randn(2, 3)


def test_a_graph_of_random_draws_alone_runs_in_an_island() -> None:
    """No tensor argument but the seed the backend passes: the importer
    once lost its block (a whole-graph fallback, "'NoneType' object has no
    attribute 'add_op'"); each call draws anew."""
    from fxdsl.testing.hf_suite import Outcome, counting_plans

    counted = Outcome()
    compiled = torch.compile(_DrawsOnly(), backend="fxdsl")
    with counting_plans(counted):
        first, second = compiled(), compiled()
    assert counted.refused == []
    assert counted.in_torch == {}
    assert first.shape == (2, 3)
    assert not torch.equal(first, second)


class _BatchNormStats(torch.nn.Module):
    def forward(self, x: Any, mean: Any, var: Any) -> Any:
        return torch.native_batch_norm(x, None, None, mean, var, False, 0.1, 1e-5)


def test_eval_batch_norm_returning_its_saved_statistics_compiles() -> None:
    """Eval mode saves empty statistics; a program returning them went to
    torch whole ("output getitem_1 is not a tensor (None)")."""
    args = (torch.randn(2, 3, 4), torch.randn(3), torch.rand(3) + 0.5)
    found = _plan_of((_BatchNormStats(), args, {}))
    assert not found.fallbacks
    got = torch.compile(_BatchNormStats(), backend="fxdsl")(*args)
    want = _BatchNormStats()(*args)
    assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in want]


def test_a_clone_of_an_input_written_later_keeps_the_old_value() -> None:
    """The import erases `clone` (it changes no value), so the graph returns
    its input for the clone; AOTAutograd then copies the input's new value
    into that same tensor. The runner hands back a copy instead (SGD with
    Nesterov momentum made its momentum buffers so, and drifted)."""

    def fn(x: Any, y: Any) -> Any:
        saved = x.clone()
        x.add_(y)
        return saved, x * 2, x.view(-1)

    x, y = torch.randn(3, 4), torch.randn(3, 4)
    want_saved = x.clone()
    compiled_x = x.clone()
    saved, doubled, flat = torch.compile(fn, backend="fxdsl")(compiled_x, y)
    torch.testing.assert_close(saved, want_saved)
    torch.testing.assert_close(compiled_x, want_saved + y)
    torch.testing.assert_close(doubled, 2 * (want_saved + y))
    assert flat.data_ptr() == compiled_x.data_ptr()  # a view stays a view


def test_outputs_torch_makes_distinct_are_distinct_tensors() -> None:
    """`y` and `y.clone()` are one value to the import; the caller gets two
    tensors, so writing one leaves the other as eager does. A node returned
    twice stays one tensor, as in eager."""

    def fn(x: Any) -> Any:
        y = x * 2
        return y, y.clone(), y.detach().clone(), y

    first, copy_, detached, again = torch.compile(fn, backend="fxdsl")(torch.ones(3))
    assert again is first
    first.add_(1)
    torch.testing.assert_close(copy_, torch.full((3,), 2.0))
    torch.testing.assert_close(detached, torch.full((3,), 2.0))


def test_a_view_of_another_output_aliases_it() -> None:
    """An output that is a view of another output (`y` and `y.view(-1)`,
    also returned before its base) shares its storage, as in eager: in
    inference AOTAutograd hands the compiled graph's views out as they are,
    and the island's were new tensors, so a write to one did not reach the
    other. Found by PyTorch's AOTAutograd tests through the backend."""

    def fn(x: Any) -> Any:
        y = x * 3
        return y.t(), y, y.view(-1), y

    with torch.no_grad():
        got = torch.compile(fn, backend="fxdsl")(torch.ones(2, 3))
        want = fn(torch.ones(2, 3))
    for outputs in (got, want):
        transposed, base, flat, _ = outputs
        assert transposed._base is base
        assert flat._base is base
        flat.mul_(2)
        transposed.add_(1)
    for mine, eager in zip(got, want, strict=True):
        torch.testing.assert_close(mine, eager)


def test_a_view_of_a_view_aliases_the_root_and_an_expand_is_returned() -> None:
    """`y`, `v = y.view(-1)` and `v.view(3, 2)` all share `y`'s storage (the
    view is rebuilt from the farthest returned output); an expanded
    intermediate (strides of 0) is handed out as computed, not copied
    into strides that overlap."""

    def fn(x: Any) -> Any:
        y = x * 3
        v = y.view(-1)
        s = x.sum(0, keepdim=True) * 2
        return y, v, v.view(3, 2), s.expand(4, 3)

    x = torch.ones(2, 3)
    with torch.no_grad():
        got = torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})(x)
        want = fn(x)
    assert got[2].data_ptr() == got[0].data_ptr()
    got[0].add_(1)
    want[0].add_(1)
    for mine, eager in zip(got, want, strict=True):
        torch.testing.assert_close(mine, eager)


@pytest.mark.parametrize("dynamic", [False, True])
def test_a_view_of_an_input_is_a_view_with_eagers_strides(dynamic: bool) -> None:
    """An output that is a view of an input (`a.expand_as(b)`) is handed
    out as a view of the caller's tensor: AOTAutograd rebuilds it from the
    graph's output with `as_strided`, taking that output's strides as they
    are, and a shape-generic graph's were the island's (a fresh tensor's),
    out of bounds of the input. Found by Inductor's dynamic-shape tests."""

    def fn(a: Any, b: Any) -> Any:
        return a.expand_as(b), (a + 1).expand_as(b + 1) + 1

    a, b = torch.randn(6, 1, 10), torch.randn(6, 12, 10)
    compiled = torch.compile(fn, backend="fxdsl", dynamic=dynamic)
    for rows in (12, 7):  # a second shape: the shape-generic graph again
        b = torch.randn(6, rows, 10)
        got, want = compiled(a, b), fn(a, b)
        assert got[0].stride() == want[0].stride() == (10, 0, 1)
        assert got[0].data_ptr() == a.data_ptr()
        for mine, eager in zip(got, want, strict=True):
            torch.testing.assert_close(mine, eager)


def test_a_constant_output_is_a_new_tensor_on_every_call() -> None:
    """An output the import folds to a constant (`torch.zeros(3)`) is handed
    out as a copy: a write to one call's result never reaches the next."""

    def fn(x: Any) -> Any:
        return x + 1, torch.zeros(3), torch.arange(4) * 2

    compiled = torch.compile(fn, backend="fxdsl")
    _, zeros, steps = compiled(torch.ones(3))
    zeros.add_(5)
    steps.add_(1)
    _, zeros, steps = compiled(torch.ones(3))
    torch.testing.assert_close(zeros, torch.zeros(3))
    torch.testing.assert_close(steps, torch.arange(4) * 2)


def test_a_dynamic_graph_is_made_concrete_without_tracing_again() -> None:
    """`_concrete` propagates the call's shapes through the shape-generic
    graph and folds every size it computes, so the copy is static, takes
    only the tensors and computes what the graph does (at a third of a new
    `make_fx` trace's cost); a size read from values keeps it symbolic:
    None, and `make_fx` is the way."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from fxdsl.frontends.torch_compile import _concrete, _symbolic

    def fn(x: Any, n: int) -> Any:
        return x.reshape(x.shape[0] * x.shape[1], -1).sum(0) * n

    generic = make_fx(fn, tracing_mode="symbolic")(torch.randn(2, 3, 4), 5)
    assert _symbolic(generic)
    x = torch.randn(3, 5, 2)
    static = _concrete(generic, [x, 7])
    assert static is not None
    assert not _symbolic(static)
    assert [n.op for n in static.graph.nodes].count("placeholder") == 1
    torch.testing.assert_close(static(x), fn(x, 7))

    def nonzero(x: Any) -> Any:
        return x.nonzero().sum()

    data = make_fx(nonzero, tracing_mode="symbolic")(torch.tensor([1.0, 0.0, 2.0]))
    assert _concrete(data, [torch.tensor([0.0, 3.0])]) is None


def test_an_index_out_of_range_is_an_index_error_as_in_eager() -> None:
    """`a[[0]]` of an empty tensor: eager raises IndexError, and so does the
    compiled function (the reference interpreter's failure is one)."""

    def fn(a: Any) -> Any:
        return a[[0]] + 1

    with pytest.raises(IndexError):
        fn(torch.tensor([]))
    with pytest.raises(IndexError, match="graph.index: index 0 is out of range"):
        torch.compile(fn, backend="fxdsl")(torch.tensor([]))


def test_outputs_have_the_strides_torchs_graph_gives_them() -> None:
    """The import drops `contiguous` (the value is the same), so the island
    handed back `x.permute(...)`'s strides for `x.permute(...).contiguous()`
    and Dynamo's `.view()` after a graph break failed; a channels-last
    result keeps its layout too. Found by Inductor's test_output_strides."""

    def across_a_break(x: Any) -> Any:
        y = x.permute(0, 2, 3, 1).contiguous()
        torch._dynamo.graph_break()
        return y.view(-1, 4)

    def channels_last(x: Any) -> Any:
        return x.contiguous(memory_format=torch.channels_last) * 2, x.mT.contiguous()

    x = torch.rand(4, 4, 4, 4)
    torch.testing.assert_close(
        torch.compile(across_a_break, backend="fxdsl")(x), across_a_break(x)
    )
    got = torch.compile(channels_last, backend="fxdsl")(x)
    for mine, eager in zip(got, channels_last(x), strict=True):
        assert mine.stride() == eager.stride()
        torch.testing.assert_close(mine, eager)


def test_any_and_all_over_an_empty_dim_are_false_and_true() -> None:
    """Torch's identities; graph-decompose's max/min of nothing was an
    error (Inductor's test_zero_dim_reductions through the backend)."""
    x = torch.zeros(2, 0, dtype=torch.float16)

    def fn(x: Any) -> Any:
        return torch.any(x, 1, keepdim=True), torch.all(x, 1), torch.all(x)

    got = torch.compile(fn, backend="fxdsl")(x)
    for mine, eager in zip(got, fn(x), strict=True):
        assert torch.equal(mine, eager)


def test_dynamos_restart_request_is_not_a_decomposition_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bf16 tensor plus a 0-d float64 tensor: torch's decompositions ask
    Dynamo to trace again with the scalar as a tensor (a RestartAnalysis).
    The backend lets the request through instead of importing the graph
    without decompositions."""
    torch._dynamo.reset()
    a = torch.randn(4, 5, dtype=torch.bfloat16)
    s = torch.tensor(1 / 3, dtype=torch.float64)
    fn = torch.compile(
        lambda a, s: a + s, backend="fxdsl", options={"min_block_size": 1}
    )
    with caplog.at_level(logging.INFO, logger="fxdsl.torch_compile"):
        got = fn(a, s)
    torch._dynamo.reset()
    assert not [r for r in caplog.records if "decompositions failed" in r.getMessage()]
    torch.testing.assert_close(got, a + s, rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["contiguous", "heads_inner", "batch_inner"])
def test_sdpa_output_has_eagers_strides(layout: str) -> None:
    """The CPU flash kernel returns its output in the query's memory layout;
    torch's decomposition in one of its own, which AOTAutograd would hand
    the caller: the backend keeps eager's strides."""
    torch._dynamo.reset()
    q = {
        "contiguous": lambda: torch.randn(2, 4, 8, 16),
        "heads_inner": lambda: torch.randn(2, 8, 4, 16).transpose(1, 2),
        "batch_inner": lambda: torch.randn(4, 8, 2, 16).permute(2, 0, 1, 3),
    }[layout]()
    sdpa = torch.nn.functional.scaled_dot_product_attention
    fn = torch.compile(
        lambda q: sdpa(q, q, q, is_causal=True),
        backend="fxdsl",
        options={"min_block_size": 1},
    )
    got, want = fn(q), sdpa(q, q, q, is_causal=True)
    torch._dynamo.reset()
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want)
