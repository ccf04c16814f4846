"""Write fxdsl's installed metadata (a `.dist-info` with its entry points)
into a folder on `sys.path`, for a checkout that runs from `PYTHONPATH`
without being installed (the GPU machine: no build there, no network).
Without it `torch.compile(backend="fxdsl")` fails with InvalidBackend,
because Dynamo finds third-party backends through the
`torch_dynamo_backends` entry point.

    python3 benchmarks/entry_points.py /tmp/site
"""

from __future__ import annotations

import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent


def write_dist_info(site: Path) -> Path:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name']}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\n"
        f"Version: {project['version']}\n"
    )
    groups = {**project.get("entry-points", {})}
    if "scripts" in project:
        groups["console_scripts"] = project["scripts"]
    lines = []
    for group, points in groups.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in points.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
    return info


if __name__ == "__main__":
    print(f"wrote {write_dist_info(Path(sys.argv[1]))}")
