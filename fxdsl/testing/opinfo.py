"""PyTorch's OpInfo database against fxdsl, the way Inductor is tested.

`torch.testing._internal.common_methods_invocations.op_db` lists every
public torch op with sample inputs. For each op with float32 (or `--dtype`)
samples on the CPU, up to `SAMPLES` of them become a small module
(`forward(*tensors)` calls the op; every tensor of the sample is an input)
that goes through `torch.export` once and is imported at both levels
(`default`: the exported graph; `core`: after `run_decompositions()`), then
run on the reference interpreter and compared with torch eager.

At the `backend` level each sample goes through `torch.compile(module,
backend="fxdsl")` (a fresh Dynamo each time) and is compared with eager; the
backend's own partition of the graphs it was given says whether fxdsl's
islands ran the op, which is the `backend` level's outcome.

Each (op, level) gets one outcome, the worst over its samples:

* `pass`: every sample matched (a random op: its values differ between
  calls, as torch's do: at the import levels, two runs with different
  seeds; the values themselves are not compared; an op whose
  values are undefined, `empty`: shapes and dtypes only);
* `n/a`: the op returns no tensor (`broadcast_shapes`): nothing to compare
  (not counted);
* `export`: `torch.export` itself failed (not fxdsl's: not counted);
* `unsupported`: the importer said it cannot take the op (a clean error);
* `fallback` (backend only): the result matched, but some of its operators
  ran in torch, not in an fxdsl island (the detail says which and why; a
  graph that Dynamo hands over empty, the op traced away, is a pass: nothing
  was left to torch);
* `wrong`: a result differs from torch's (shape, dtype or values);
* `crash`: anything else raised: an fxdsl bug.

`--dtype bfloat16` (or `float16`) takes each op's samples in that dtype
instead of float32, as real GPU work runs. A 16-bit value is a match within
torch's `assert_close` rtol for the dtype, or where it is as close to the
op's float64 result as eager's own (`opinfo_compare.LOW_PRECISION`): eager
rounds after every op and fxdsl once per fused chain, so neither is the
exact answer.
The indices of an unstable sort or top-k are compared by the values they
pick (`TIE_ORDER`): 16-bit samples are full of ties.

At the `grad` level (`opinfo_grad`) each sample OpInfo makes for its
gradient tests goes through a training step compiled by the backend, and
the inputs' gradients are compared with eager's.

`--noncontiguous` takes each sample as torch's test_ops also runs it,
`SampleInput.noncontiguous()` (each tensor a view with gaps, its strides
kept in the copies fxdsl is given): a model hands the backend transposed,
sliced and expanded tensors.

`python -m fxdsl.testing.opinfo [--ops a,b] [--json out.json] [--levels
default,core,backend,grad] [--dtype D] [--noncontiguous]` prints the table and
the pass rates (the backend's: the share of ops fxdsl's islands ran whole,
matching eager);
`tests/frontends/test_opinfo.py` holds the result against each dtype's
expected-failure table. Needs torch and `expecttest` (which torch's test
package imports).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from fxdsl.testing.opinfo_compare import (
    DTYPES,
    SIGN_FREE,
    TIE_ORDER,
    arrays,
    compare,
    dtypes_differ,
    flat,
    picked_values,
)
from fxdsl.testing.opinfo_eager import (
    DRAWS,
    _first_line,
    _raised_by_fxdsl,
    _random,
    _unseeded,
)
from fxdsl.testing.torch_models import function_module
from fxdsl.util.atomic_write import write_atomic

SAMPLES = 3
"""Samples per op (OpInfo's first ones: the plainest)."""

LEVELS = ("default", "core")
"""The import levels (`from_torch`'s default, and `decompose=True`)."""
BACKEND = "backend"
"""The torch.compile backend's level (measured when asked for)."""
GRAD = "grad"
"""A training step through the backend (`opinfo_grad`; when asked for)."""
ALL_LEVELS = (*LEVELS, BACKEND, GRAD)
OUTCOMES = ("pass", "n/a", "export", "unsupported", "fallback", "wrong", "crash")
"""From best to worst; an op's outcome at a level is its worst sample's."""

NOT_COUNTED = ("n/a", "export")
"""Outcomes the pass rates leave out: nothing of fxdsl's was tried."""

FAMILIES = ("linalg.", "fft.", "special.")
"""Op families the rates are also given without (torch's own sub-libraries)."""


@dataclass(frozen=True)
class Case:
    """One OpInfo sample as a module's inputs: `call(*tensors)` is the op."""

    op: str
    index: int
    call: Callable[..., Any]
    tensors: tuple[Any, ...]
    process: Callable[[Any], Any] | None = None
    """What of the output is compared (`SIGN_FREE` ops): torch's own
    `output_process_fn_grad`; None: all of it."""
    dtype: str = "float32"
    """The samples' dtype (of `DTYPES`)."""
    grad_process: Callable[[Any], Any] | None = None
    """The sample's `output_process_fn_grad` (what of the output a
    gradient test differentiates), for the `grad` level."""

    @cached_property
    def fp64(self) -> Any:
        """The op on the float samples upcast to float64 (the reference a
        16-bit result is judged by), or None where that fails; computed once
        for every level that judges the case."""

        wide = [t.double() if t.is_floating_point() else t for t in self.tensors]
        try:
            return self.call(*wide)
        except Exception:  # noqa: BLE001 - no fp64 kernel: eager alone judges
            return None


def op_db() -> list[Any]:
    """OpInfo's database (imports torch's test package: several seconds)."""
    from torch.testing._internal.common_methods_invocations import op_db as ops

    return list(ops)


def op_name(op: Any) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def cases(
    op: Any,
    limit: int = SAMPLES,
    dtype: str = "float32",
    noncontiguous: bool = False,
    requires_grad: bool = False,
) -> Iterator[Case]:
    """Up to `limit` CPU samples of `op` in `dtype` as `Case`s, the same on
    every run: OpInfo draws sample values from torch's global generator,
    seeded here per op (else an op's outcome could depend on what ran
    before it, and CI would not be reproducible).

    `noncontiguous`: each sample as torch's test_ops also runs it,
    `SampleInput.noncontiguous()` (every tensor a strided view of a larger
    buffer), and the copies keep those strides (a plain `clone()` of a
    non-dense view is contiguous): a model hands the backend transposed,
    sliced and expanded tensors.

    `requires_grad`: the samples OpInfo makes for its gradient tests (the
    tensors the op differentiates require grad; their copies are leaves)."""
    import torch
    from torch.utils import _pytree as pytree

    if getattr(torch, dtype) not in op.supported_dtypes("cpu"):
        return
    torch.manual_seed(0)
    samples = op.sample_inputs(
        "cpu", getattr(torch, dtype), requires_grad=requires_grad
    )
    for index, sample in enumerate(samples):
        if index >= limit:
            return
        if noncontiguous:
            sample = _noncontiguous(sample)
        leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
        positions = [
            i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)
        ]

        def call(*tensors: Any, leaves: list[Any] = leaves, spec: Any = spec,
                 positions: list[int] = positions) -> Any:  # fmt: skip
            filled = list(leaves)
            for position, tensor in zip(positions, tensors):
                filled[position] = tensor
            first, args, kwargs = pytree.tree_unflatten(filled, spec)
            return op.op(first, *args, **kwargs)

        # the plain run's copies are contiguous as its expected-failure
        # tables were measured with; --noncontiguous keeps the views' strides
        copy = _copy if noncontiguous else (lambda t: t.detach().clone())
        tensors = tuple(
            copy(leaves[i]).requires_grad_(leaves[i].requires_grad) for i in positions
        )
        name = op_name(op)
        process = sample.output_process_fn_grad if name in SIGN_FREE else None
        if name in TIE_ORDER and not sample.kwargs.get("stable", False):
            process = picked_values(name, sample)
        yield Case(
            name, index, call, tensors, process, dtype, sample.output_process_fn_grad
        )


def _noncontiguous(sample: Any) -> Any:
    """`sample.noncontiguous()`, or `sample` itself where torch cannot make
    it so (a sparse input: `is_contiguous` raises)."""
    try:
        return sample.noncontiguous()
    except RuntimeError:
        return sample


def _copy(tensor: Any) -> Any:
    """A copy of `tensor` with its strides (`clone()` keeps only a dense
    tensor's; a strided view's copy would be contiguous)."""
    import torch

    if tensor.layout != torch.strided:
        return tensor.clone()
    copy = torch.empty_strided(
        tensor.size(), tensor.stride(), dtype=tensor.dtype, device=tensor.device
    )
    return copy.copy_(tensor)


UNDEFINED = (
    "empty",
    "empty_like",
    "new_empty",
    "new_empty_strided",
    "empty_strided",
    "empty_permuted",
)
"""ATen ops whose values are undefined (uninitialised memory)."""


def _undefined(program: Any) -> bool:
    """Whether an output of `program` comes straight from an op whose values
    are undefined (only its shape and dtype can be compared)."""
    from torch.utils import _pytree as pytree

    output = program.graph.find_nodes(op="output")[0]
    return any(
        getattr(getattr(node, "target", None), "__name__", "").split(".")[0]
        in UNDEFINED
        for node in pytree.tree_leaves(output.args[0])
    )


def _same(a: Any, b: Any) -> bool:
    """Whether two arrays hold the same values, NaN where the other has NaN
    (a NaN is no sign of randomness: `var` of one element is NaN every
    call)."""
    import numpy as np

    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _differs(first: Sequence[Any], draw: Callable[[int], Sequence[Any]]) -> str | None:
    """None when one of `DRAWS - 1` more runs (`draw(k)`, k = 1, 2, ...)
    differs from the first (as a random op's must)."""

    for k in range(1, DRAWS):
        if any(not _same(a, b) for a, b in zip(first, draw(k))):
            return None
    return "a random op gives the same values on every call"


def check_import(case: Case) -> dict[str, tuple[str, str]]:
    """`level -> (outcome, detail)` for one sample through `from_torch`."""
    import torch

    from fxdsl.frontends.torch_export import TorchImportError, from_exported_program

    module = function_module(case.call)
    try:
        with _unseeded():  # random as a user's calls are, as the backend's
            expected, varies = _eager(case)
        if not _returns_tensor(expected):
            why = f"returns no tensor ({type(expected).__name__})"
            return dict.fromkeys(LEVELS, ("n/a", why))
        with torch.no_grad():
            exported = torch.export.export(module, case.tensors, strict=False)
    except Exception as error:  # noqa: BLE001 - torch's failure, not ours
        return dict.fromkeys(LEVELS, ("export", _first_line(error)))
    undefined = _undefined(exported)  # `empty`: only shapes and dtypes count
    outcomes: dict[str, tuple[str, str]] = {}
    for level in LEVELS:
        try:
            program = exported if level == "default" else exported.run_decompositions()
        except Exception as error:  # noqa: BLE001 - torch's failure, not ours
            outcomes[level] = ("export", _first_line(error))
            continue
        try:
            imported = from_exported_program(program)
            if (varies or imported.seeded) and not undefined:
                why = _random_differs(imported, case, expected, varies)
            else:
                why = compare(
                    expected,
                    imported.run(*case.tensors),
                    values=not undefined,
                    process=case.process,
                    case=case,
                )
        except TorchImportError as error:
            outcomes[level] = ("unsupported", _first_line(error))
            continue
        except Exception as error:  # noqa: BLE001 - every other failure is a bug
            outcomes[level] = ("crash", f"{type(error).__name__}: {_first_line(error)}")
            continue
        outcomes[level] = ("wrong", why) if why else ("pass", "")
    return outcomes


def _random_differs(
    imported: Any, case: Case, expected: Any, varies: bool
) -> str | None:
    """A random op imported: shapes and dtypes as torch's, and (where
    torch's own calls differ) other numbers for another seed."""
    first = imported.run(*case.tensors, seed=0) if imported.seeded else None
    if first is None:
        return "a random op imported without a seed: the same values on every call"
    why = compare(expected, first, values=False)
    if why is None and varies:
        why = _differs(first, lambda k: imported.run(*case.tensors, seed=k))
    return why


def _eager(case: Case) -> tuple[Any, bool]:
    """torch's result for `case`, and whether the op is random; a
    ValueError for inputs no fxdsl path takes (sparse tensors)."""
    import torch

    if any(t.layout != torch.strided for t in case.tensors):
        raise ValueError("sparse or other non-strided inputs")
    return case.call(*case.tensors), _random(case)


def _returns_tensor(value: Any) -> bool:
    import torch

    return any(isinstance(v, torch.Tensor) for v in flat(value))


def check_backend(case: Case) -> tuple[str, str]:
    """`(outcome, detail)` for one sample through `torch.compile(...,
    backend="fxdsl", fullgraph=True)` on the CPU, counted from the
    backend's own plans: `pass` only when the result matches and fxdsl ran
    every operator. A failure in Dynamo or AOTAutograd is torch's
    (`export`); one raised from fxdsl's code (or a backend failure) is a
    `crash`."""
    with _unseeded():
        return _through_backend(case)


def _through_backend(case: Case) -> tuple[str, str]:
    import torch

    from fxdsl.testing.hf_suite import Outcome, counting_plans

    try:
        expected, varies = _eager(case)
    except Exception as error:  # noqa: BLE001 - torch's failure, not ours
        return ("export", _first_line(error))
    if not _returns_tensor(expected):
        return ("n/a", f"returns no tensor ({type(expected).__name__})")
    undefined = case.op.split(".")[0] in UNDEFINED
    counted = Outcome()
    torch._dynamo.reset()  # one code object serves every op: no stale guards
    try:
        compiled = torch.compile(
            function_module(case.call), backend="fxdsl", fullgraph=True
        )
        with counting_plans(counted), torch.no_grad():
            returned = compiled(*case.tensors)
            first = arrays(returned)
            random = (varies or counted.draws) and not undefined
            # a random op's values are compared only in that they vary as eager's
            differs = (
                _differs(first, lambda _: arrays(compiled(*case.tensors)))
                if random and varies
                else None
            )
    except Exception as error:  # noqa: BLE001 - sorted by where it was raised
        torch_fails = _fails_in_torch(case)
        if _raised_by_fxdsl(error) and torch_fails is None:
            return ("crash", f"{type(error).__name__}: {_first_line(error)}")
        return ("export", torch_fails or _first_line(error))
    finally:
        torch._dynamo.reset()
    why = (
        dtypes_differ(expected, returned)
        or compare(
            expected,
            first,
            values=not (random or undefined),
            process=case.process,
            case=case,
        )
        or differs
    )
    if why and not random and _as_torchs_own_compile(case, first):
        why = f"torch.compile's own graph (aot_eager) gives the same: {why}"
        return ("export", why)
    if why:
        return ("wrong", why)
    if counted.in_torch:
        return ("fallback", counted.summary())
    return ("pass", "")


def _as_torchs_own_compile(case: Case, first: Sequence[Any]) -> bool:
    """Whether torch's own `aot_eager` backend gives `first` too: the graph
    Dynamo and AOTAutograd hand over already differs from eager (uint8
    bilinear resizing: a Python decomposition in float where eager's
    kernel is fixed-point), so no backend can match eager."""
    import torch

    torch._dynamo.reset()
    try:
        compiled = torch.compile(
            function_module(case.call), backend="aot_eager", fullgraph=True
        )
        with torch.no_grad():
            theirs = compiled(*case.tensors)
    except Exception:  # noqa: BLE001 - then it is no evidence either way
        return False
    finally:
        torch._dynamo.reset()
    return compare(theirs, first, process=case.process, case=case) is None


def _fails_in_torch(case: Case) -> str | None:
    """Why the sample fails through torch's own `aot_eager` backend (the
    graphs fxdsl is given, run by torch: a data-dependent size's bound
    that torch gets wrong), or None when it runs."""
    import torch

    torch._dynamo.reset()
    try:
        compiled = torch.compile(
            function_module(case.call), backend="aot_eager", fullgraph=True
        )
        with torch.no_grad():
            compiled(*case.tensors)
    except Exception as error:  # noqa: BLE001 - torch's failure, not ours
        return f"fails with backend='aot_eager' too: {_first_line(error)}"
    return None


def check_op(
    op: Any,
    limit: int = SAMPLES,
    levels: Sequence[str] = LEVELS,
    dtype: str = "float32",
    noncontiguous: bool = False,
) -> dict[str, tuple[str, str]]:
    """`level -> (outcome, detail)` for `op` at `levels` (of `LEVELS` and
    `BACKEND`): its worst sample at each; an op without samples in `dtype`
    gets nothing."""
    return worst(check_samples(op, limit, levels, dtype, noncontiguous))


def check_samples(
    op: Any,
    limit: int = SAMPLES,
    levels: Sequence[str] = LEVELS,
    dtype: str = "float32",
    noncontiguous: bool = False,
) -> list[dict[str, Any]]:
    """Each sample's `level -> (outcome, detail)` at `levels`, and its
    `seconds` (`noncontiguous`: `cases`')."""
    unknown = set(levels) - set(ALL_LEVELS)
    if unknown:
        raise ValueError(f"unknown level(s) {sorted(unknown)}: {ALL_LEVELS}")
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}: {DTYPES}")
    if GRAD in levels:
        levels = [lv for lv in levels if lv != GRAD]
        graded = _grad_samples(op, limit, dtype, noncontiguous)
    else:
        graded = []
    found: list[dict[str, Any]] = []
    for case in cases(op, limit, dtype, noncontiguous) if levels else []:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcomes: dict[str, Any] = {}
            if set(levels) & set(LEVELS):
                imported = check_import(case)
                outcomes.update((lv, imported[lv]) for lv in LEVELS if lv in levels)
            if BACKEND in levels:
                outcomes[BACKEND] = check_backend(case)
        outcomes["seconds"] = round(time.perf_counter() - start, 3)
        found.append(outcomes)
    for index, graded_sample in enumerate(graded):
        if index < len(found):
            seconds = found[index]["seconds"] + graded_sample.pop("seconds")
            found[index].update(graded_sample, seconds=seconds)
        else:
            found.append(graded_sample)
    return found


def _grad_samples(
    op: Any, limit: int, dtype: str, noncontiguous: bool
) -> list[dict[str, Any]]:
    """Each sample's `grad` outcome (`opinfo_grad`), from the samples
    OpInfo makes for its gradient tests."""
    from fxdsl.testing.opinfo_grad import check_grad

    if not op.supports_autograd:
        return [{GRAD: ("n/a", "OpInfo: no autograd"), "seconds": 0.0}]
    found: list[dict[str, Any]] = []
    for case in cases(op, limit, dtype, noncontiguous, requires_grad=True):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = check_grad(case)
        found.append({GRAD: outcome, "seconds": round(time.perf_counter() - start, 3)})
    return found


def worst(samples: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """The worst outcome per level over `samples` (`check_samples`')."""
    found: dict[str, tuple[str, str]] = {}
    for sample in samples:
        for level in ALL_LEVELS:
            if level not in sample:
                continue
            outcome = tuple(sample[level])
            if level not in found or _rank(outcome) > _rank(found[level]):
                found[level] = (outcome[0], outcome[1])
    return found


def _rank(outcome: tuple[str, str]) -> int:
    return OUTCOMES.index(outcome[0])


def rates(results: dict[str, dict[str, tuple[str, str]]]) -> dict[str, float]:
    """Pass rate per measured level over the ops torch could export (Dynamo
    could trace, at the backend level), all ops and outside `FAMILIES`."""
    found: dict[str, float] = {}
    for level in ALL_LEVELS:
        if not any(level in r for r in results.values()):
            continue
        for label, keep in (("all", lambda _: True), ("core", _outside_families)):
            counted = [
                r[level][0]
                for name, r in results.items()
                if level in r and r[level][0] not in NOT_COUNTED and keep(name)
            ]
            passed = sum(o == "pass" for o in counted)
            found[f"{level}/{label}"] = passed / len(counted) if counted else 1.0
    return found


def _outside_families(name: str) -> bool:
    return not name.startswith(FAMILIES)


TABLE_HEADER = '''"""OpInfo ops ({dtype} samples) that do not import yet: op -> level ->
reason.

Held by tests/frontends/test_opinfo.py against its run ({samples} sample(s)
per op): an op failing at a level not listed here fails the test, and so
does a listed one that passes (delete its entry). Written by
`python -m fxdsl.testing.opinfo --dtype {dtype} --json RESULTS --resume
--table THIS_FILE --table-samples {samples}`; the reason is the importer's
message.
"""

EXPECTED: dict[str, dict[str, str]] = {{
'''


def expected_table(
    results: dict[str, dict[str, Any]], samples: int, dtype: str = "float32"
) -> str:
    """The expected-failure table (Python source) of `results` as a run of
    `samples` samples per op would see them: every `unsupported` outcome."""
    lines = [TABLE_HEADER.format(samples=samples, dtype=dtype)]
    for name, result in sorted(results.items()):
        found = worst(result["samples"][:samples]) if "samples" in result else result
        failing = {
            level: _reason(found[level][1])
            for level in LEVELS
            if level in found and found[level][0] == "unsupported"
        }
        if failing:
            lines.append(f"    {name!r}: {{\n")
            for level, reason in failing.items():
                lines.append(f"        {level!r}: {reason!r},\n")
            lines.append("    },\n")
    lines.append("}\n")
    return "".join(lines)


def _reason(detail: str) -> str:
    """An importer message without its node name (which the IR chooses) and
    without the op's name twice."""
    detail = re.sub(r" \(node %[^)]*\)", "", detail)
    return re.sub(r"^(\S+): (?=\1 )", "", detail)[:200]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OpInfo ops through fxdsl.from_torch")
    parser.add_argument("--ops", help="comma-separated OpInfo names (default: all)")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument(
        "--dtype",
        default="float32",
        choices=DTYPES,
        help="the samples' dtype (16-bit: judged against eager and float64)",
    )
    parser.add_argument(
        "--levels",
        default=",".join(LEVELS),
        help=f"comma-separated, of {', '.join(ALL_LEVELS)} "
        f'({BACKEND}: through torch.compile(backend="fxdsl"), the island rate; '
        f"{GRAD}: a training step through it, the gradients compared)",
    )
    parser.add_argument(
        "--noncontiguous",
        action="store_true",
        help="each sample made non-contiguous (SampleInput.noncontiguous(), as "
        "torch's test_ops also runs it), its strides kept",
    )
    parser.add_argument("--json", help="write the outcomes here")
    parser.add_argument("--resume", action="store_true", help="keep --json's ops")
    parser.add_argument("--table", help="write the expected-failure table here")
    parser.add_argument(
        "--table-samples", type=int, default=1, help="samples the table is for"
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        help="K/N: only every N-th op, from the K-th (run N processes, then "
        "join their --json files with --resume)",
    )
    args = parser.parse_args(argv)
    shard, shards = _shard(parser, args.shard)
    chosen = set(args.ops.split(",")) if args.ops else None
    results: dict[str, dict[str, Any]] = {}
    if args.resume and args.json and Path(args.json).exists():
        results = json.loads(Path(args.json).read_text())
    for index, op in enumerate(op_db()):
        name = op_name(op)
        if (chosen is not None and name not in chosen) or name in results:
            continue
        if index % shards != shard:
            continue
        samples = check_samples(
            op, args.samples, args.levels.split(","), args.dtype, args.noncontiguous
        )
        results[name] = {**worst(samples), "samples": samples}
        cells = "  ".join(
            f"{lv}={results[name].get(lv, ('-', ''))[0]}"
            for lv in ALL_LEVELS
            if lv in results[name]
        )
        print(f"{name:40} {cells}", flush=True)
        if args.json:
            write_atomic(args.json, json.dumps(results, indent=1, sort_keys=True))
    for key, value in rates(results).items():
        print(f"pass rate {key}: {100 * value:.1f} %")
    if args.table:
        table = expected_table(results, args.table_samples, args.dtype)
        write_atomic(args.table, table)
    return 0


def _shard(parser: argparse.ArgumentParser, given: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+)", given)
    if not match or not int(match[1]) < int(match[2]):
        parser.error(f"--shard wants K/N with 0 <= K < N, got {given!r}")
    return int(match[1]), int(match[2])


if __name__ == "__main__":
    sys.exit(main())
