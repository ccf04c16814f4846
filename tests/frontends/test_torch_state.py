"""Programs that write their inputs (`fxdsl.frontends.torch_state`): a
batch norm in training writes its running statistics, `index_add_` its
`self`. The imported function returns the new values after the user
outputs, and `ImportedProgram.run` writes them back where torch would: the
caller's tensors and arrays, the weights the next call reads, and the
model's own buffers."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import (  # noqa: E402
    TorchImportError,
    from_exported_program,
    from_torch,
)
from fxdsl.frontends.torch_state import StateUpdate  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402

LEVELS = pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])


def _batch_norm(x: Any, mean: Any, var: Any, w: Any, b: Any) -> Any:
    return torch.nn.functional.batch_norm(
        x, mean, var, w, b, training=True, momentum=0.3, eps=1e-3
    )


def _inputs(seed: int) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(4, 3, 5, generator=g) * 2 + 1,
        torch.randn(3, generator=g),
        torch.rand(3, generator=g) + 0.5,
        torch.rand(3, generator=g),
        torch.randn(3, generator=g),
    )


@LEVELS
def test_batch_norm_in_training_writes_the_callers_running_statistics(
    decompose: bool,
) -> None:
    """Batch statistics normalise (the biased variance); the running mean
    and the unbiased variance move by `momentum`, in the caller's tensors,
    call after call, as torch's do."""
    program = from_torch(function_module(_batch_norm), _inputs(0), decompose=decompose)
    assert program.updates == [
        StateUpdate("input", 1, "args_1"),
        StateUpdate("input", 2, "args_2"),
    ]
    mine, torchs = _inputs(1), _inputs(1)
    for _ in range(2):
        (got,) = program.run(*mine)
        want = _batch_norm(*torchs)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
        for written, expected in zip(mine[1:3], torchs[1:3]):
            np.testing.assert_allclose(written, expected, rtol=1e-6, atol=1e-6)
    assert not torch.equal(mine[1], _inputs(1)[1])  # the statistics did move


def test_numpy_inputs_are_written_too_and_other_inputs_are_an_error() -> None:
    program = from_torch(function_module(_batch_norm), _inputs(0))
    arrays = [t.numpy().copy() for t in _inputs(2)]
    program.run(*arrays)
    expected = _inputs(2)
    _batch_norm(*expected)
    np.testing.assert_allclose(arrays[1], expected[1].numpy(), rtol=1e-6)
    listed: list[Any] = [t.numpy().copy() for t in _inputs(2)]
    listed[1] = tuple(listed[1])  # float32 elements: a valid input
    with pytest.raises(ValueError, match=r"writes its input 1 \(%args_1\)"):
        program.run(*listed)


def _trained(decompose: bool) -> tuple[Any, Any]:
    """A conv + BatchNorm2d model exported in training mode, and a copy."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3), torch.nn.BatchNorm2d(4))
    model.train()
    twin = copy.deepcopy(model)
    x = torch.randn(3, 2, 6, 6)
    exported = torch.export.export(model, (x,), strict=False)
    if decompose:
        exported = exported.run_decompositions()
    return exported, twin


@LEVELS
def test_a_module_exported_in_training_mode_updates_its_buffers(
    decompose: bool,
) -> None:
    """torch.export in training mode hides the writes at the default level
    (`batch_norm` says nothing of them in its schema; found on import, the
    buffers become arguments) and lists them at the core level (its
    BUFFER_MUTATION outputs): either way the running statistics and
    `num_batches_tracked` reach the model's buffers."""
    exported, twin = _trained(decompose)
    program = from_exported_program(exported)
    assert {u.name for u in program.updates} == {
        "1.running_mean",
        "1.running_var",
        "1.num_batches_tracked",
    }
    state = exported.state_dict
    for step in range(2):
        x = torch.randn(3, 2, 6, 6, generator=torch.Generator().manual_seed(step))
        (got,) = program.run(x)
        want = twin(x).detach()
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
        for name, value in twin.state_dict().items():
            np.testing.assert_allclose(
                state[name].detach().numpy(), value.numpy(), rtol=1e-5, atol=1e-6
            )
    assert int(state["1.num_batches_tracked"]) == 2


def test_freezing_keeps_written_buffers_as_arguments() -> None:
    exported, twin = _trained(decompose=False)
    program = from_exported_program(exported, freeze=True)
    assert [u.kind for u in program.updates] == ["weight"] * 3
    assert len(program.weights) == 3  # the conv's and the norm's affine: bound
    x = torch.randn(3, 2, 6, 6)
    (got,) = program.run(x)
    np.testing.assert_allclose(got, twin(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    mean = exported.state_dict["1.running_mean"]
    np.testing.assert_allclose(mean.numpy(), twin[1].running_mean.numpy(), rtol=1e-5)


@LEVELS
def test_an_in_place_op_on_a_user_input_writes_it_back(decompose: bool) -> None:
    index = torch.tensor([0, 2, 0])

    def accumulate(x: Any, source: Any) -> Any:
        x.index_add_(0, index, source)
        return x.sum(0)

    x, source = torch.randn(4, 3), torch.randn(3, 3)
    program = from_torch(
        function_module(accumulate), (x.clone(), source), decompose=decompose
    )
    mine, torchs = x.clone(), x.clone()
    (got,) = program.run(mine, source)
    want = accumulate(torchs, source)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine.numpy(), torchs.numpy(), rtol=1e-6, atol=1e-6)


@LEVELS
def test_the_written_values_lower_to_kernels_too(decompose: bool) -> None:
    """The function is value-semantic, so the GPU pipeline takes it as any
    other: on the IR emulator it returns the output and the new running
    statistics the reference returns."""
    exported, _ = _trained(decompose)
    program = from_exported_program(exported)
    x = torch.randn(3, 2, 6, 6, generator=torch.Generator().manual_seed(9))
    arrays = [*program.weights, x.numpy()]
    want = fxdsl.run(program.module, *arrays)
    assert len(want) == 1 + len(program.updates)
    machine = Emulator(fxdsl.apply(program.module.clone(), GPU_PIPELINE))
    got = machine.run("forward", *arrays)
    assert machine.launches > 0
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


class _WritesARow(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        x[0].add_(1.0)
        return x * 2


def test_a_write_into_a_view_of_an_input_is_a_value_at_the_core_level() -> None:
    """The core-ATen graph has `x[0] += 1` as a select_scatter of `x`: the
    output and the caller's `x` are torch's."""
    x = torch.randn(3, 4)
    program = from_torch(_WritesARow(), (x.clone(),), decompose=True)
    mine, torchs = x.clone(), x.clone()
    (got,) = program.run(mine)
    np.testing.assert_allclose(got, _WritesARow()(torchs).numpy(), rtol=1e-6)
    np.testing.assert_allclose(mine.numpy(), torchs.numpy(), rtol=1e-6)


def test_writes_that_cannot_be_values_are_refused_not_wrong() -> None:
    """The default graph writes `x[0]` through a view of the input (it was
    imported as if the write went nowhere: a wrong result), and `resize_`
    would change an input's type."""
    with pytest.raises(TorchImportError, match="a view of the input x .*decompose"):
        from_torch(_WritesARow(), (torch.randn(3, 4),))

    def shrink(x: Any) -> Any:
        x.resize_(2, 3)
        return x + 1

    with pytest.raises(TorchImportError, match=r"changes the shape of the input"):
        from_torch(function_module(shrink), (torch.randn(3, 4),))
