"""A program cut into pipeline stages, and each stage as a `torch.nn.Module`.

    staged = stage_program(program.module, program.weights, stages=2)
    stage = staged.torch_stage(rank, backend="cpu")   # a PipelineStage

`stage_program` runs `graph-pipeline-stages` on a copy of the module (at the
micro-batch size: shapes are static, so import the model with the batch of
one micro-batch). `StageModule` compiles one stage's function alone with
`fxdsl.compile` and calls it with torch tensors in and out (numpy on the CPU,
DLPack on torch's current stream on the GPU: the torch.compile backend's
island call). `torch_stage` builds the `PipelineStage` by hand, from the
stage's signature: its tracer cannot see through fxdsl's kernels, and
without `input_args` the stage would run its forward once more on
uninitialised tensors to find its shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.traits import SymbolTable

from fxdsl.ir.dtypes import numpy_dtype
from fxdsl.tools.weights import parameter_names
from fxdsl.transforms.graph_pipeline_stages import StagePlan, pipeline_stages

Array = np.ndarray[Any, Any]


@dataclass
class StagedProgram:
    """A module whose public function calls `@stage_0` ... `@stage_{N-1}` in a
    chain, the weights by fqn, and the plan that cut it."""

    module: ModuleOp
    weights: dict[str, Array]
    plan: StagePlan | None
    """None for a module staged elsewhere (parsed from text)."""

    @property
    def main(self) -> func.FuncOp:
        return next(f for f in self.module.ops if isinstance(f, func.FuncOp))

    @property
    def calls(self) -> list[func.CallOp]:
        """The public function's call of each stage, in order."""
        ops = self.main.body.block.ops
        return [op for op in ops if isinstance(op, func.CallOp)]

    @property
    def num_stages(self) -> int:
        return len(self.calls)

    def stage_function(self, index: int) -> func.FuncOp:
        callee = SymbolTable.lookup_symbol(self.module, self.calls[index].callee)
        assert isinstance(callee, func.FuncOp)
        return callee

    def stage_weights(self, index: int) -> list[Array]:
        """The arrays of stage `index`'s weight arguments, in order."""
        names = parameter_names(self.stage_function(index))
        return [self.weights[n] for n in names if n is not None]

    def input_types(self, index: int) -> list[TensorType[Attribute]]:
        """Types of the activations stage `index` receives (stage 0: the user
        inputs of one micro-batch)."""
        function = self.stage_function(index)
        names = parameter_names(function)
        types = function.function_type.inputs.data
        return [t for t, n in zip(types, names) if n is None]  # type: ignore[misc]

    def output_types(self, index: int) -> list[TensorType[Attribute]]:
        return list(self.stage_function(index).function_type.outputs.data)  # type: ignore[arg-type]

    def stage_module(self, index: int, backend: str = "cpu") -> Any:
        """Stage `index` as an `nn.Module` (see `StageModule`)."""
        return _stage_module_class()(self, index, backend)

    def torch_stage(
        self,
        index: int,
        backend: str = "cpu",
        device: Any = None,
        group: Any = None,
    ) -> Any:
        """`torch.distributed.pipelining.PipelineStage` of stage `index`,
        with example inputs and outputs of one micro-batch."""
        import torch
        from torch.distributed.pipelining import PipelineStage

        if device is None:
            on_gpu = backend == "cuda"
            device = torch.cuda.current_device() if on_gpu else "cpu"
        device = torch.device(device)
        return PipelineStage(
            self.stage_module(index, backend),
            index,
            self.num_stages,
            device,
            input_args=tuple(example(t, device) for t in self.input_types(index)),
            output_args=tuple(example(t, device) for t in self.output_types(index)),
            group=group,
        )


def stage_program(
    module: ModuleOp,
    weights: Sequence[Array] | dict[str, Array],
    stages: int,
    cuts: Sequence[str] = (),
    device: str = "h100",
) -> StagedProgram:
    """Cut a copy of `module`'s public function into `stages` stages (or at
    the scopes `cuts`); `weights` are the arrays of its leading `graph.param`
    arguments in order (`ImportedProgram.weights`) or a dict by fqn."""
    staged = module.clone()
    plan = pipeline_stages(staged, stages, cuts, device)
    if not isinstance(weights, dict):
        main = next(f for f in staged.ops if isinstance(f, func.FuncOp))
        names = [n for n in parameter_names(main) if n is not None]
        if len(names) != len(weights):
            raise ValueError(
                f"stage_program: the function has {len(names)} weight arguments, "
                f"got {len(weights)} arrays"
            )
        weights = dict(zip(names, weights))
    return StagedProgram(staged, dict(weights), plan)


def example(typ: TensorType[Attribute], device: Any = None) -> Any:
    """A zero tensor of IR type `typ` (bf16 as torch bf16)."""
    import torch

    from fxdsl.ir.dtypes import is_bf16

    if is_bf16(typ.element_type):
        return torch.zeros(tuple(typ.get_shape()), dtype=torch.bfloat16, device=device)
    array = np.zeros(tuple(typ.get_shape()), dtype=numpy_dtype(typ.element_type))
    return torch.from_numpy(array).to(device)


def _single_function_module(function: func.FuncOp) -> ModuleOp:
    clone = function.clone()
    clone.sym_visibility = StringAttr("public")
    return ModuleOp([clone])


_STAGE_MODULE: list[type] = []


def _stage_module_class() -> type:
    """`StageModule`, defined on first use: torch is imported lazily."""
    if _STAGE_MODULE:
        return _STAGE_MODULE[0]
    import torch

    from fxdsl.api import compile as compile_module
    from fxdsl.frontends.torch_compile import (
        call_island,
    )

    class StageModule(torch.nn.Module):
        """One stage: its compiled function, its weights as buffers; forward
        takes the activations and returns the stage's results (a tensor, or a
        tuple of them when there are several)."""

        def __init__(self, staged: StagedProgram, index: int, backend: str):
            super().__init__()
            self.index = index
            self.backend = backend
            self.call = staged.calls[index]
            function = staged.stage_function(index)
            self.run = compile_module(_single_function_module(function), backend)
            self.held = None  # on the GPU: its weights converted once
            if backend == "cuda":
                from fxdsl.runtime.torch_operands import DeviceOperands

                self.held = DeviceOperands()
            device = "cuda" if backend == "cuda" else "cpu"
            self.weight_names = [n for n in parameter_names(function) if n]
            for i, array in enumerate(staged.stage_weights(index)):
                tensor = torch.from_numpy(np.ascontiguousarray(array)).to(device)
                self.register_buffer(f"w{i}", tensor, persistent=False)

        def forward(self, *activations: Any) -> Any:
            weights = [getattr(self, f"w{i}") for i in range(len(self.weight_names))]
            outputs = call_island(
                self.run, [*weights, *activations], self.backend, self.call, self.held
            )
            return outputs[0] if len(outputs) == 1 else tuple(outputs)

    _STAGE_MODULE.append(StageModule)
    return StageModule
