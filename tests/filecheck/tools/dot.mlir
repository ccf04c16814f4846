// RUN: fxdsl-opt %s -t dot | filecheck %s
// RUN: fxdsl-opt %s -t 'dot{edge-labels=false}' | filecheck %s --check-prefix=NOLABEL

// -t dot: a digraph with one cluster per function, args as input nodes,
// fusion groups and module scopes as nested clusters, values as edges.

// CHECK:      digraph "module" {
// CHECK:        subgraph cluster_main {
// CHECK-NEXT:     label="@main";
// CHECK:          [[X:n[0-9]+]] [label="%x\n4x8xf32", shape=invhouse
// CHECK-NEXT:     [[W:n[0-9]+]] [label="%w\n3x8xf32\nblock.fc.weight", shape=cylinder
// CHECK-NEXT:     subgraph [[S:cluster_[0-9]+]] {
// CHECK-NEXT:       label="block (Block)";
// CHECK-NEXT:       style=dashed;
// CHECK-NEXT:       subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:         label="block.fc (Linear) #1";
// CHECK-NEXT:         style=dashed;
// CHECK-NEXT:         [[LIN:n[0-9]+]] [label="graph.linear\n4x3xf32"];
// CHECK-NEXT:       }
// CHECK-NEXT:       subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:         label="graph.fusion_group";
// CHECK:              [[NEG:n[0-9]+]] [label="graph.neg\n4x3xf32"];
// CHECK-NEXT:         [[EXP:n[0-9]+]] [label="graph.exp\n4x3xf32"];
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     [[SPLIT:n[0-9]+]] [label="graph.split\n2x3xf32, 2x3xf32"];
// CHECK-NEXT:     [[CALL:n[0-9]+]] [label="call @help\"er\n2x3xf32", style="rounded,bold"];
// CHECK-NEXT:     [[RET:n[0-9]+]] [label="return", shape=house
// CHECK-NEXT:   }
// Names that are not DOT identifiers get numbered clusters; quotes and
// backslashes in labels are escaped.
// CHECK-NEXT:   subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:     label="@help\"er";
// CHECK:          [[A:n[0-9]+]] [label="%a\n2x3xf32", shape=invhouse
// CHECK-NEXT:     subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:       label="a\"b\\c (T)";
// CHECK-NEXT:       style=dashed;
// CHECK-NEXT:       [[QUOTE:n[0-9]+]] [label="graph.neg\n2x3xf32"];
// CHECK-NEXT:     }
// CHECK-NEXT:     [[HRET:n[0-9]+]] [label="return", shape=house
// CHECK-NEXT:   }
// CHECK-NEXT:   [[X]] -> [[LIN]] [label="4x8xf32"];
// CHECK-NEXT:   [[W]] -> [[LIN]] [label="3x8xf32"];
// The fusion group's block argument is drawn as an edge from its producer.
// CHECK-NEXT:   [[LIN]] -> [[NEG]] [label="4x3xf32"];
// CHECK-NEXT:   [[NEG]] -> [[EXP]] [label="4x3xf32"];
// The group's result is an edge from the yielded value's producer.
// CHECK-NEXT:   [[EXP]] -> [[SPLIT]] [label="4x3xf32"];
// CHECK-NEXT:   [[SPLIT]] -> [[CALL]] [label="#1 2x3xf32"];
// CHECK-NEXT:   [[CALL]] -> [[RET]] [label="2x3xf32"];
// CHECK-NEXT:   [[A]] -> [[QUOTE]] [label="2x3xf32"];
// CHECK-NEXT:   [[QUOTE]] -> [[HRET]] [label="2x3xf32"];
// CHECK-NEXT: }

// NOLABEL-NOT: -> {{.*}}label
// NOLABEL: n0 -> n2;

func.func @main(%x: tensor<4x8xf32>, %w: tensor<3x8xf32> {graph.param = "block.fc.weight"}) -> tensor<2x3xf32> {
  %y = graph.linear %x, %w {scope = #graph.scope<("block", 0, "Block"), ("block.fc", 1, "Linear")>} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
  %g = graph.fusion_group (%y) {scope = #graph.scope<("block", 0, "Block")>} : (tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>):
    %n = graph.neg %a : tensor<4x3xf32>
    %e = graph.exp %n : tensor<4x3xf32>
    graph.yield %e : tensor<4x3xf32>
  }
  %p, %q = graph.split %g dim 0 sizes [2, 2] : (tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %r = func.call @"help\"er"(%q) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

func.func private @"help\"er"(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = graph.neg %a {scope = #graph.scope<("a\"b\\c", 0, "T")>} : tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}
