"""Running `-p` pass pipelines: every pass by name, parsed and applied.

`fxdsl.apply` and `fxdsl.parse_pipeline` live here, below the runtime, so
that compiling flows one way: the runtime runs its pipeline through this
module and never calls back up into `fxdsl.api`, which re-exports these.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes as upstream_passes

from fxdsl.ir.parsing import make_context
from fxdsl.ir.utils import verify_ssa
from fxdsl.pipeline.universe import get_all_passes
from fxdsl.util.pipeline_syntax import check_pass_options, quote_dotted_values


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name: upstream xDSL's and fxdsl's."""
    return {**upstream_passes(), **get_all_passes()}


def parse_pipeline(pipeline: str, verify_each: bool = True) -> PassPipeline:
    """Parse a `-p`-style pipeline (`"cse,graph-fuse{max-args=64}"`) into
    passes, which verify the module after each step unless `verify_each` is
    false. Raises ValueError (or xDSL's ArgSpecParseError) for unknown
    passes and bad options."""
    spec = quote_dotted_values(pipeline)
    passes = available_passes()
    check_pass_options(spec, passes)
    if not verify_each:
        return PassPipeline.parse_spec(passes, spec)
    return PassPipeline.parse_spec(
        passes,
        spec,
        lambda _prev, mod, _next: verify_ssa(mod),
    )


def apply(
    module: ModuleOp, pipeline: str | PassPipeline, verify_each: bool = True
) -> ModuleOp:
    """Run a pipeline (text or parsed) on `module` in place, verifying after
    each pass (as mlir-opt does), or with `verify_each=False` once at the
    end: a verification walks every op (about a third of the default GPU
    pipeline's time on a 20k-op module), which the compile paths save, and
    the tests, which run pipelines with the default, keep. Returns the
    module for chaining."""
    if not isinstance(pipeline, str | PassPipeline):
        raise TypeError(
            "pipeline must be a pass pipeline string such as 'graph-decompose,"
            f"graph-fuse' or a PassPipeline, got {type(pipeline).__name__}"
        )
    if isinstance(pipeline, str):
        pipeline = parse_pipeline(pipeline, verify_each)
    pipeline.apply(make_context(), module)
    if not verify_each:
        verify_ssa(module)
    return module
