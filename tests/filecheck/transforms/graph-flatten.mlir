// RUN: fxdsl-opt %s -p graph-flatten | filecheck %s

// Module calls are inlined with absolute fqns; call indices count calls of
// one fqn in order (here `blk` twice, so `blk.ln` twice too). Module
// functions disappear; a plain call (no graph.module) stays.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[A:.*]] = graph.tanh %{{.*}} {scope = #graph.scope<("blk", 0, "Block")>}
// CHECK-NEXT:    %[[B:.*]] = graph.layer_norm %[[A]], %{{.*}}, %{{.*}} eps {{.*}} {scope = #graph.scope<("blk", 0, "Block"), ("blk.ln", 0, "LayerNorm")>}
// CHECK-NEXT:    %[[C:.*]] = graph.tanh %[[B]] {scope = #graph.scope<("blk", 1, "Block")>}
// CHECK-NEXT:    %[[D:.*]] = graph.layer_norm %[[C]], %{{.*}}, %{{.*}} eps {{.*}} {scope = #graph.scope<("blk", 1, "Block"), ("blk.ln", 1, "LayerNorm")>}
// CHECK-NEXT:    %[[E:.*]] = func.call @helper(%[[D]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[E]]
// CHECK-NOT:   func.func private @blk
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:   func.func
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32> {graph.param = "blk.ln.weight"}, %b: tensor<4xf32> {graph.param = "blk.ln.bias"}) -> tensor<4xf32> {
  %0 = func.call @blk(%x, %w, %b) {graph.module = #graph.scope<("blk", 0, "Block")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @blk(%0, %w, %b) {graph.module = #graph.scope<("blk", 1, "Block")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = func.call @helper(%1) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
func.func private @blk(%x: tensor<4xf32>, %w: tensor<4xf32> {graph.param = "ln.weight"}, %b: tensor<4xf32> {graph.param = "ln.bias"}) -> tensor<4xf32> {
  %t = graph.tanh %x : tensor<4xf32>
  %y = func.call @blk.ln(%t, %w, %b) {graph.module = #graph.scope<("ln", 0, "LayerNorm")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @blk.ln(%x: tensor<4xf32>, %w: tensor<4xf32> {graph.param = "weight"}, %b: tensor<4xf32> {graph.param = "bias"}) -> tensor<4xf32> {
  %y = graph.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
