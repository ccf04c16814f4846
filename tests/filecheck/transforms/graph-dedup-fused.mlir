// RUN: fxdsl-opt %s -p graph-dedup | filecheck %s
// RUN: fxdsl-opt %s -p graph-dedup | fxdsl-opt -p graph-dedup | filecheck %s

// graph-dedup after graph-fuse: a fusion group is one unit of a region, and
// two groups are alike when their bodies are (ops, wiring, types,
// properties; not the provenance scopes).

// CHECK-LABEL: func.func @fused_chains(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x4xf32>, %[[Y:[^:]+]]: tensor<4x4xf32>)
// CHECK-NEXT:    %[[C:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]])
// CHECK-NEXT:    %[[D:.*]] = func.call @[[F]](%[[Y]])
// CHECK-NEXT:    func.return %[[C]], %[[D]]
// CHECK:       func.func private @[[F]](%[[A:[^:]+]]: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {graph.dedup} {
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%[[A]]) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[P:.*]]: tensor<4x4xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[P]]
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:      graph.yield %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:.*]] = graph.matmul %[[G]], %[[A]]
// CHECK-NEXT:    func.return %[[S]]
func.func @fused_chains(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %g = graph.fusion_group (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%p: tensor<4x4xf32>):
    %e = graph.exp %p {scope = #graph.scope<("layers.0", 0, "Layer")>} : tensor<4x4xf32>
    %n = graph.neg %e : tensor<4x4xf32>
    graph.yield %n : tensor<4x4xf32>
  }
  %s = graph.matmul %g, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h = graph.fusion_group (%y) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%q: tensor<4x4xf32>):
    %f = graph.exp %q {scope = #graph.scope<("layers.1", 0, "Layer")>} : tensor<4x4xf32>
    %m = graph.neg %f : tensor<4x4xf32>
    graph.yield %m : tensor<4x4xf32>
  }
  %t = graph.matmul %h, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %s, %t : tensor<4x4xf32>, tensor<4x4xf32>
}

// Groups whose bodies differ (exp then neg, tanh then neg) are not alike:
// nothing is outlined.
// CHECK-LABEL: func.func @different_bodies(
// CHECK-NOT:     func.call
// CHECK:         func.return
func.func @different_bodies(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %g = graph.fusion_group (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%p: tensor<4x4xf32>):
    %e = graph.exp %p : tensor<4x4xf32>
    %n = graph.neg %e : tensor<4x4xf32>
    graph.yield %n : tensor<4x4xf32>
  }
  %s = graph.matmul %g, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h = graph.fusion_group (%y) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%q: tensor<4x4xf32>):
    %f = graph.tanh %q : tensor<4x4xf32>
    %m = graph.neg %f : tensor<4x4xf32>
    graph.yield %m : tensor<4x4xf32>
  }
  %t = graph.matmul %h, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %s, %t : tensor<4x4xf32>, tensor<4x4xf32>
}
