"""`-t dot`: structure of the Graphviz output, determinism, and `dot` accepts it."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from xdsl.dialects import func

import fxdsl
from fxdsl.dialects import graph
from fxdsl.targets.dot import DotPrinter, DotTarget, quote, short_type
from fxdsl.tools.fxdsl_opt import main as fxdsl_opt

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))

NODE = re.compile(r"^\s*(n\d+) \[label=", re.M)
EDGE = re.compile(r"^\s*(n\d+) -> (n\d+)", re.M)
CLUSTER = re.compile(r"^\s*subgraph (cluster_\w+) \{", re.M)

MLP = """
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<16x8xf32> {graph.param = "fc1.weight"},
               %w2: tensor<8x16xf32> {graph.param = "fc2.weight"}) -> tensor<4x8xf32> {
  %h = graph.linear %x, %w1 {scope = #graph.scope<("fc1", 0, "Linear")>}
       : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %a = graph.relu %h {scope = #graph.scope<("act", 0, "ReLU")>} : tensor<4x16xf32>
  %y = graph.linear %a, %w2 {scope = #graph.scope<("fc2", 0, "Linear")>}
       : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %r = graph.add %y, %x : tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
"""

FUSED = """
func.func @f(%x: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r:2 = graph.fusion_group (%x, %b) : (tensor<4xf32>, tensor<4xf32>)
         -> (tensor<4xf32>, tensor<f32>) {
  ^bb0(%p: tensor<4xf32>, %q: tensor<4xf32>):
    %s = graph.add %p, %q : tensor<4xf32>
    %e = graph.exp %s : tensor<4xf32>
    %m = graph.sum %e dims [0] : (tensor<4xf32>) -> tensor<f32>
    graph.yield %e, %m : tensor<4xf32>, tensor<f32>
  }
  %t = graph.neg %r#0 : tensor<4xf32>
  func.return %t, %r#1 : tensor<4xf32>, tensor<f32>
}
"""

# Two calls of one module (same fqn, call index 0 and 1) and a nested scope.
SCOPED = """
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x {scope = #graph.scope<("blk", 0, "Block")>} : tensor<4xf32>
  %b = graph.exp %a {scope = #graph.scope<("blk", 0, "Block"), ("blk.act", 0, "Act")>}
       : tensor<4xf32>
  %c = graph.neg %b {scope = #graph.scope<("blk", 1, "Block")>} : tensor<4xf32>
  %d = graph.exp %c {scope = #graph.scope<("blk", 1, "Block"), ("blk.act", 0, "Act")>}
       : tensor<4xf32>
  func.return %d : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def render(text: str, edge_labels: bool = True) -> str:
    return DotPrinter(edge_labels=edge_labels).render(fxdsl.parse(text))


def cluster_body(dot: str, cluster: str) -> str:
    """Text of one cluster, nested clusters included."""
    start = dot.index(f"subgraph {cluster} {{")
    depth = 0
    for i in range(start, len(dot)):
        depth += dot[i] == "{"
        depth -= dot[i] == "}"
        if depth == 0 and dot[i] == "}":
            return dot[start : i + 1]
    raise AssertionError("unbalanced braces")


def labels(dot: str) -> dict[str, str]:
    return {
        m[1]: m[2]
        for m in re.finditer(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M)
    }


def test_mlp_counts() -> None:
    dot = render(MLP)
    assert dot.startswith('digraph "module" {')
    # 3 args + 4 ops + return; one edge per operand (linear, relu, linear,
    # add, return).
    assert len(NODE.findall(dot)) == 8
    assert len(EDGE.findall(dot)) == 2 + 1 + 2 + 2 + 1
    # One cluster for the function, one per module call.
    assert CLUSTER.findall(dot)[0] == "cluster_mlp"
    assert len(CLUSTER.findall(dot)) == 4
    names = labels(dot)
    assert sum(v.startswith("graph.linear") for v in names.values()) == 2
    assert "%w1\\n16x8xf32\\nfc1.weight" in names.values()
    assert "return" in names.values()


def test_fusion_group_cluster_and_edges() -> None:
    dot = render(FUSED)
    names = labels(dot)
    by_label = {v.split("\\n")[0]: k for k, v in names.items()}
    group = next(c for c in CLUSTER.findall(dot) if c != "cluster_f")
    body = cluster_body(dot, group)
    assert 'label="graph.fusion_group"' in body
    inside = set(NODE.findall(body))
    assert inside == {
        by_label["graph.add"],
        by_label["graph.exp"],
        by_label["graph.sum"],
    }
    edges = set(EDGE.findall(dot))
    x, b = by_label["%x"], by_label["%b"]
    # Block arguments: the group's operands feed the add directly.
    assert (x, by_label["graph.add"]) in edges
    assert (b, by_label["graph.add"]) in edges
    # Results: users of the group are fed by the yielded values' producers.
    assert (by_label["graph.exp"], by_label["graph.neg"]) in edges
    assert (by_label["graph.sum"], by_label["return"]) in edges
    assert len(edges) == 7
    assert "graph.yield" not in dot


def test_scopes_nest_by_call() -> None:
    dot = render(SCOPED)
    g = cluster_body(dot, "cluster_g")
    scope_labels = re.findall(r'label="([^"]*)";', g)
    # Two calls of "blk", each with its own nested "blk.act".
    assert scope_labels == [
        "@g", "blk (Block)", "blk.act (Act)", "blk (Block) #1", "blk.act (Act)",
    ]  # fmt: skip
    assert len(CLUSTER.findall(g)) == 5
    caller = cluster_body(dot, "cluster_caller")
    assert 'label="call @g\\n4xf32"' in caller


def test_output_is_deterministic() -> None:
    first = render(MLP + SCOPED.replace("@g", "@g2").replace("@caller", "@c2"))
    second = render(MLP + SCOPED.replace("@g", "@g2").replace("@caller", "@c2"))
    assert first == second
    # Node ids follow program order.
    assert NODE.findall(first) == [f"n{i}" for i in range(len(NODE.findall(first)))]


def test_edge_labels_option() -> None:
    with_labels = render(FUSED)
    without = render(FUSED, edge_labels=False)
    assert EDGE.findall(with_labels) == EDGE.findall(without)
    assert re.search(r"-> n\d+ \[label=", with_labels)
    assert not re.search(r"-> n\d+ \[", without)


def test_target_spec_and_driver(tmp_path: Path) -> None:
    assert DotTarget.name == "dot"
    src = tmp_path / "f.mlir"
    src.write_text(FUSED)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = fxdsl_opt([str(src), "-t", "dot{edge-labels=false}"])
    assert code == 0
    assert out.getvalue() == render(FUSED, edge_labels=False)


def test_quote_and_short_type() -> None:
    assert quote('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert short_type(graph.tensor([4, 8], graph.f32)) == "4x8xf32"
    assert short_type(graph.tensor([], graph.i1)) == "i1"


def test_declaration_and_nested_module() -> None:
    module = fxdsl.parse(
        "builtin.module @outer { builtin.module @inner {"
        " func.func private @ext(tensor<2xf32>) -> tensor<2xf32> } }"
    )
    dot = DotPrinter().render(module)
    assert dot.startswith('digraph "outer" {')
    assert 'label="module @inner";' in dot
    assert "(declaration)" in dot


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_one_node_per_op_one_edge_per_operand(seed: int) -> None:
    from fxdsl.testing import random_graph

    module = random_graph(seed, scoped=True)
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    ops = list(main.body.block.ops)
    dot = DotPrinter().render(module)
    assert len(NODE.findall(dot)) == len(main.args) + len(ops)
    assert len(EDGE.findall(dot)) == sum(len(op.operands) for op in ops)
    scopes = {
        tuple(f[:2] for f in op.attributes[graph.SCOPE].data[: depth + 1])
        for op in ops
        if isinstance(op.attributes.get(graph.SCOPE), graph.ScopeAttr)
        for depth in range(len(op.attributes[graph.SCOPE].data))
    }
    assert len(CLUSTER.findall(dot)) == 1 + len(scopes)
    assert dot == DotPrinter().render(module)


needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="graphviz not installed"
)


@needs_dot
@pytest.mark.parametrize("name", ["MLP", "FUSED", "SCOPED"])
def test_graphviz_accepts_own_graphs(name: str) -> None:
    text = render(globals()[name])
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout
    # Every cluster survives as an svg group with its label.
    assert result.stdout.count('class="cluster"') == len(CLUSTER.findall(text))


@needs_dot
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_graphviz_accepts_examples(path: Path) -> None:
    text = DotPrinter().render(fxdsl.parse(path.read_text(), str(path)))
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('class="node"') == len(NODE.findall(text))
