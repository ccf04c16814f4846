"""The harness's outputs: JSON, a markdown table and a PNG bar chart.

Everything is rendered in memory first and only then written, each file
atomically (`tools/atomic_write`): a failed run leaves no partial file, and a
reader sees either the previous report or the whole new one. The PNG needs
matplotlib (the `bench` extra); without it the JSON and markdown are written
and `write_report` says the PNG was left out.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from fxdsl.bench.harness import Row, WorkloadResult, fill_ratios
from fxdsl.bench.limits import H100_SXM
from fxdsl.bench.workloads import describe_dims
from fxdsl.util.atomic_write import write_atomic

SCHEMA_VERSION = 1
PNG_NEEDS_EXTRA = "PNG chart skipped: it needs matplotlib (pip install 'fxdsl[bench]')"


def _clean(value: Any) -> Any:
    # JSON has no NaN/inf: a non-finite float becomes null.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def to_json(meta: dict[str, Any], results: list[WorkloadResult]) -> str:
    """The report as JSON text (`meta`: date, tag, device, settings...)."""
    document = {
        "schema": SCHEMA_VERSION,
        **meta,
        "workloads": [asdict(r) for r in results],
    }
    return json.dumps(_clean(document), indent=2, allow_nan=False) + "\n"


def load_report(path: Path) -> tuple[dict[str, Any], list[WorkloadResult]]:
    """The metadata and workload results of a report written by `to_json`."""
    document = json.loads(path.read_text())
    if document.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"not an fxdsl-bench report (schema {SCHEMA_VERSION})")
    results: list[WorkloadResult] = []
    for entry in document.pop("workloads"):
        rows = [Row(**row) for row in entry.pop("rows")]
        results.append(WorkloadResult(**entry, rows=rows))
    return document, results


def merge_results(
    old: list[WorkloadResult],
    new: list[WorkloadResult],
    workload_order: list[str],
    variant_order: list[str],
) -> list[WorkloadResult]:
    """`old` updated with `new`: a workload's rows of the variants `new` ran
    replace the old ones, its other rows stay (so a long run can be split
    over several commands by workload or by variant). Ratios are recomputed.
    """
    merged = {r.name: r for r in old}
    rank = {name: i for i, name in enumerate(dict.fromkeys(variant_order))}
    for result in new:
        previous = merged.get(result.name)
        ran = {row.variant for row in result.rows}
        kept = [r for r in previous.rows if r.variant not in ran] if previous else []
        rows = sorted(kept + result.rows, key=lambda r: rank.get(r.variant, len(rank)))
        merged[result.name] = replace(result, rows=rows)
    for result in merged.values():
        fill_ratios(result)
    place = {name: index for index, name in enumerate(workload_order)}
    return sorted(merged.values(), key=lambda r: place.get(r.name, len(place)))


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.{digits}g}" if abs(value) < 1 else f"{value:.{digits}f}"
    return f"{value:.{digits}g}"


def _note(row: Row) -> str:
    if row.status == "ok":
        return ""
    text = f"**{row.status}**"
    return f"{text}: {row.reason}" if row.reason else text


COLUMNS = (
    "variant", "median ms", "p10", "p90", "GB/s", "TFLOPS", "× copy",
    "× best torch",
    "compile cold s", "warm s", "warm lower/build/load s", "kernels",
    "max abs err", "note",
)  # fmt: skip


def _phases(row: Row) -> str:
    phases = row.warm_phases_s
    if not phases:
        return "–"
    return "/".join(_number(phases.get(p, 0.0), 2) for p in ("lower", "build", "load"))


def _cells(row: Row) -> list[str]:
    return [
        row.variant,
        _number(row.median_ms),
        _number(row.p10_ms),
        _number(row.p90_ms),
        _number(row.gb_per_s, 1),
        _number(row.tflops, 1),
        _number(row.vs_copy, 2),
        _number(row.vs_best_torch, 2),
        _number(row.compile_cold_s),
        _number(row.compile_warm_s),
        _phases(row),
        "–" if row.kernels is None else str(row.kernels),
        "–" if row.max_abs_err is None else f"{row.max_abs_err:.2g}",
        _note(row).replace("|", "\\|"),
    ]


def _limits(result: WorkloadResult) -> str:
    """Bytes, FLOPs and the H100 floor of one workload's header line."""
    text = f"{result.bytes_moved / 1e6:.3g} MB moved"
    if result.flops is not None:
        text += f", {result.flops / 1e9:.3g} GFLOP"
    element = result.element if result.element in H100_SXM.tflops else "f32"
    floor = H100_SXM.floor_ms(result.flops, result.bytes_moved, element)
    return f"{text}; floor {floor:.3g} ms ({H100_SXM.describe(element)})"


def to_markdown(meta: dict[str, Any], results: list[WorkloadResult]) -> str:
    """One table per workload, under a header naming device and settings."""
    device = meta.get("device", {})
    lines = [
        f"# fxdsl-bench {meta.get('date', '')} ({meta.get('tag', '')})",
        "",
        f"- device: {device.get('name', '?')} (backend {device.get('backend', '?')})",
        f"- scale: {meta.get('scale')}, numerics checked at {meta.get('check_scale')}"
        " scale against the CPU reference",
        f"- timing: median of {meta.get('runs')} runs after {meta.get('warmup')}"
        f" warm-up runs; {meta.get('timing', '')}",
        "- × copy: median / median of a device copy moving the same bytes "
        "(inputs read + outputs written); × best torch: median / fastest torch",
        "- compile: compile + first call, cold = empty kernel caches, "
        "warm = same caches again",
        "- floor: the least time on an H100 SXM (its dense tensor-core peak for "
        "the FLOPs, HBM3 bandwidth for the bytes, whichever is longer)",
        "",
    ]
    for result in results:
        dims = describe_dims(result.dims)
        lines += [
            f"## {result.name}",
            "",
            f"{result.description}; {dims}; {_limits(result)}",
            "",
            "| " + " | ".join(COLUMNS) + " |",
            "|" + "|".join("---" for _ in COLUMNS) + "|",
        ]
        lines += ["| " + " | ".join(_cells(row)) + " |" for row in result.rows]
        lines.append("")
    return "\n".join(lines)


def render_png(meta: dict[str, Any], results: list[WorkloadResult]) -> bytes | None:
    """A grouped bar chart of median time relative to the copy baseline
    (log scale), one group per workload; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    variants = list(
        dict.fromkeys(r.variant for res in results for r in res.rows if r.median_ms)
    )
    figure, axes = plt.subplots(figsize=(max(8, 1.6 * len(results)), 5))
    width = 0.8 / max(len(variants), 1)
    for index, variant in enumerate(variants):
        heights = [
            _relative(next((r for r in res.rows if r.variant == variant), None))
            for res in results
        ]
        offset = (index - len(variants) / 2 + 0.5) * width
        positions = [i + offset for i in range(len(results))]
        axes.bar(positions, [h or 0 for h in heights], width, label=variant)
    axes.set_xticks(range(len(results)), [r.name for r in results], rotation=20)
    axes.set_yscale("log")
    axes.set_ylabel("median time / copy of the same bytes (lower is better)")
    axes.set_title(f"fxdsl-bench {meta.get('date', '')} {meta.get('tag', '')}")
    axes.legend(fontsize="small")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    plt.close(figure)
    return buffer.getvalue()


def _relative(row: Row | None) -> float | None:
    if row is None or row.status != "ok":
        return None
    return row.vs_copy if row.vs_copy is not None else row.median_ms


def write_report(
    out_dir: Path, stem: str, meta: dict[str, Any], results: list[WorkloadResult]
) -> tuple[list[Path], str | None]:
    """Render JSON, markdown and (if possible) PNG, then write each
    atomically as `out_dir/stem.{json,md,png}`. Returns the paths written
    and, when the PNG was left out, the note saying why."""
    rendered: dict[str, str | bytes] = {
        ".json": to_json(meta, results),
        ".md": to_markdown(meta, results),
    }
    png = render_png(meta, results)
    if png is not None:
        rendered[".png"] = png
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for suffix, data in rendered.items():
        path = out_dir / f"{stem}{suffix}"
        write_atomic(path, data)
        written.append(path)
    return written, (None if png is not None else PNG_NEEDS_EXTRA)
