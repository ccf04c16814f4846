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
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.ir import graph
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


# A two-level model: root -> encoder -> three identical layers.
ENCODER = (
    """
func.func @main(%x: tensor<4xf32>,
                %w0: tensor<4xf32> {graph.param = "encoder.layers.0.w"},
                %w1: tensor<4xf32> {graph.param = "encoder.layers.1.w"},
                %w2: tensor<4xf32> {graph.param = "encoder.layers.2.w"})
    -> tensor<4xf32> {
  %a = graph.neg %x {scope = #graph.scope<("encoder", 0, "Encoder")>} : tensor<4xf32>
"""
    + "".join(
        f"""  %l{i} = graph.mul %{"a" if i == 0 else f"l{i - 1}"}, %w{i} {{scope =
      #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.{i}", 0, "Layer")>}}
      : tensor<4xf32>
"""
        for i in range(3)
    )
    + """  %e = graph.tanh %l2 : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
"""
)

CALL_EDGE = re.compile(r"^\s*(n\d+) -> (n\d+) \[lhead=(cluster_\w+), ([^\]]*)\];", re.M)


def unflattened(module: ModuleOp) -> str:
    return DotPrinter().render(fxdsl.apply(module, "graph-unflatten"))


def cluster_labels(dot: str) -> dict[str, str]:
    """Cluster id -> its label."""
    return {
        m[1]: m[2]
        for m in re.finditer(
            r'subgraph (cluster_\w+) \{\n\s*label="((?:[^"\\]|\\.)*)";', dot
        )
    }


def direct_children(dot: str, cluster: str) -> list[str]:
    """Clusters nested directly in `cluster`."""
    body = cluster_body(dot, cluster)
    inner = CLUSTER.findall(body)[1:]
    nested = {
        c for child in inner for c in CLUSTER.findall(cluster_body(body, child))[1:]
    }
    return [c for c in inner if c not in nested]


def test_unflattened_modules_nest_in_their_callers() -> None:
    module = fxdsl.apply(fxdsl.parse(ENCODER), "graph-unflatten")
    dot = DotPrinter().render(module)
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    assert [f.sym_name.data for f in functions] == [
        "main", "encoder", "encoder.layers.0",
    ]  # fmt: skip
    # One cluster per function, each drawn once, nested along the call chain.
    assert CLUSTER.findall(dot) == [
        "cluster_main", "cluster_encoder", "cluster_encoder_layers_0",
    ]  # fmt: skip
    assert direct_children(dot, "cluster_main") == ["cluster_encoder"]
    assert direct_children(dot, "cluster_encoder") == ["cluster_encoder_layers_0"]
    names = cluster_labels(dot)
    assert names["cluster_encoder"] == "encoder (Encoder)\\n@encoder"
    assert names["cluster_encoder_layers_0"] == (
        "encoder.layers.0 (Layer)\\n+ encoder.layers.1\\n+ encoder.layers.2"
        "\\n@encoder.layers.0"
    )
    # The three layer calls sit in the encoder's cluster, outside the layer's.
    node_labels = labels(dot)
    calls = {v.split("\\n")[0]: k for k, v in node_labels.items() if "\\ncall @" in v}
    assert list(calls) == [
        "encoder (Encoder)", "layers.0 (Layer)", "layers.1 (Layer)", "layers.2 (Layer)",
    ]  # fmt: skip
    encoder = cluster_body(dot, "cluster_encoder")
    layer = cluster_body(dot, "cluster_encoder_layers_0")
    layer_nodes = set(NODE.findall(layer))
    for name in ("layers.0 (Layer)", "layers.1 (Layer)", "layers.2 (Layer)"):
        assert calls[name] in NODE.findall(encoder)
        assert calls[name] not in layer_nodes
    # Every module call points at its callee's cluster; only the first call
    # (the one the cluster is drawn at) constrains the layout.
    edges = {m[1]: (m[2], m[3], m[4]) for m in CALL_EDGE.finditer(dot)}
    assert set(edges) == set(calls.values())
    first_layer_node = NODE.findall(layer)[0]
    for name in ("layers.0 (Layer)", "layers.1 (Layer)", "layers.2 (Layer)"):
        head, lhead, _ = edges[calls[name]]
        assert (head, lhead) == (first_layer_node, "cluster_encoder_layers_0")
    assert [("constraint=false" in e[2]) for e in edges.values()] == [
        False, False, True, True,
    ]  # fmt: skip
    # Data edges are unchanged: one per operand, plus one per module call.
    ops = [op for f in functions for op in f.body.block.ops]
    args = sum(len(f.args) for f in functions)
    assert len(NODE.findall(dot)) == args + len(ops)
    assert len(EDGE.findall(dot)) == sum(len(op.operands) for op in ops) + 4
    assert NODE.findall(dot) == [f"n{i}" for i in range(len(NODE.findall(dot)))]
    assert dot == DotPrinter().render(module)


def test_gpt2_stack_draws_the_module_tree() -> None:
    from fxdsl.frontends.models import gpt2_stack

    dot = unflattened(gpt2_stack(2, B=1, T=8, D=16, heads=2))
    names = cluster_labels(dot)
    by_first_line = {v.split("\\n")[0]: k for k, v in names.items()}
    entry = CLUSTER.findall(dot)[0]
    assert names[entry] == "@gpt2"
    transformer = by_first_line["transformer (GPT2Model)"]
    block = by_first_line["transformer.h.0 (GPT2Block)"]
    assert direct_children(dot, entry) == [transformer]
    assert block in direct_children(dot, transformer)
    # The two blocks share one function: h.1 is listed on h.0's cluster.
    assert names[block] == (
        "transformer.h.0 (GPT2Block)\\n+ transformer.h.1\\n@transformer.h.0"
    )
    inside_block = {names[c].split("\\n")[0] for c in direct_children(dot, block)}
    assert inside_block == {
        "transformer.h.0.ln_1 (LayerNorm)",
        "transformer.h.0.attn (GPT2Attention)",
        "transformer.h.0.mlp (GPT2MLP)",
    }
    attn = by_first_line["transformer.h.0.attn (GPT2Attention)"]
    assert {names[c].split("\\n")[0] for c in direct_children(dot, attn)} == {
        "transformer.h.0.attn.c_attn (Linear)",
        "transformer.h.0.attn.c_proj (Linear)",
    }
    # ln_1, ln_2 of both blocks and ln_f share one LayerNorm function.
    ln = by_first_line["transformer.h.0.ln_1 (LayerNorm)"]
    assert names[ln].split("\\n")[1:] == [
        "+ transformer.h.0.ln_2", "+ transformer.h.1.ln_1", "+ transformer.h.1.ln_2",
        "+ 1 more call", "@transformer.h.0.ln_1",
    ]  # fmt: skip
    # ln_f is called from transformer's cluster: a non-constraining edge.
    ln_f = next(k for k, v in labels(dot).items() if v.startswith("ln_f (LayerNorm)"))
    assert ln_f in NODE.findall(cluster_body(dot, transformer))
    edges = {m[1]: (m[3], m[4]) for m in CALL_EDGE.finditer(dot)}
    assert edges[ln_f] == (ln, f"{_CALL_EDGE_STYLE}, constraint=false")
    # Every function is drawn exactly once.
    assert len(names) == dot.count("subgraph cluster_") == 11


def test_shared_function_label_counts_every_call() -> None:
    from fxdsl.frontends.models import gpt2_stack

    dot = unflattened(gpt2_stack(6, B=1, T=4, D=8, heads=2))
    lines = [label.split("\\n") for label in cluster_labels(dot).values()]
    names = {first: rest for first, *rest in lines}
    # Six calls of the shared block: three listed, the rest counted.
    assert names["transformer.h.0 (GPT2Block)"] == [
        "+ transformer.h.1", "+ transformer.h.2", "+ transformer.h.3",
        "+ 2 more calls", "@transformer.h.0",
    ]  # fmt: skip
    # ln_1 and ln_2 of six blocks and ln_f: 13 calls of one LayerNorm.
    assert names["transformer.h.0.ln_1 (LayerNorm)"] == [
        "+ transformer.h.0.ln_2", "+ transformer.h.1.ln_1", "+ transformer.h.1.ln_2",
        "+ 9 more calls", "@transformer.h.0.ln_1",
    ]  # fmt: skip
    assert names["transformer.h.0.mlp.act (NewGELUActivation)"][-2] == "+ 2 more calls"


_CALL_EDGE_STYLE = 'style=dashed, color="#1a73e8", arrowhead=empty'

RECURSIVE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @f(%x) {graph.module = #graph.scope<("self", 0, "M")>}
       : (tensor<4xf32>) -> tensor<4xf32>
  %z = func.call @ext(%y) {graph.module = #graph.scope<("ext", 0, "E")>}
       : (tensor<4xf32>) -> tensor<4xf32>
  func.return %z : tensor<4xf32>
}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
"""


def test_recursive_module_call_and_declaration() -> None:
    dot = render(RECURSIVE)
    # @ext is nested in @f; the call of @f from inside @f gets no edge into
    # the cluster that contains it (Graphviz rejects such an lhead).
    assert direct_children(dot, "cluster_f") == ["cluster_ext"]
    assert "(declaration)" in cluster_body(dot, "cluster_ext")
    assert [m[3] for m in CALL_EDGE.finditer(dot)] == ["cluster_ext"]


@pytest.mark.parametrize("seed", range(8))
def test_random_unflattened_graphs_draw_each_function_once(seed: int) -> None:
    from fxdsl.testing import random_graph

    module = fxdsl.apply(random_graph(seed, scoped=True), "graph-unflatten")
    dot = DotPrinter().render(module)
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    ops = [op for f in functions for op in f.walk() if op is not f]
    module_calls = [op for op in ops if "graph.module" in op.attributes]
    assert len(CLUSTER.findall(dot)) == len(functions) + sum(
        isinstance(op, graph.FusionGroupOp) for op in ops
    )
    assert len(CALL_EDGE.findall(dot)) == len(module_calls)
    assert len(EDGE.findall(dot)) == sum(
        len(op.operands) for op in ops if not isinstance(op, graph.YieldOp)
    ) + len(module_calls)


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
@pytest.mark.parametrize("name", ["ENCODER", "GPT2", "RECURSIVE"])
def test_graphviz_accepts_module_clusters(name: str) -> None:
    if name == "GPT2":
        from fxdsl.frontends.models import gpt2_stack

        text = unflattened(gpt2_stack(2, B=1, T=8, D=16, heads=2))
    elif name == "ENCODER":
        text = unflattened(fxdsl.parse(ENCODER))
    else:
        text = render(RECURSIVE)
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    # No warnings either (an lhead Graphviz cannot honour is only a warning).
    assert result.stderr == ""
    assert result.stdout.count('class="cluster"') == len(CLUSTER.findall(text))
    assert result.stdout.count('class="node"') == len(NODE.findall(text))


@needs_dot
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_graphviz_accepts_examples(path: Path) -> None:
    text = DotPrinter().render(fxdsl.parse(path.read_text(), str(path)))
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('class="node"') == len(NODE.findall(text))
