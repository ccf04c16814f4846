// RUN: fxdsl-opt %s -p graph-flatten --split-input-file | filecheck %s
// RUN: fxdsl-opt %s -p graph-flatten,graph-unflatten,graph-flatten --split-input-file | filecheck %s

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

// -----

// Preserved call signatures: the names the module functions lost come back
// from `graph.call_signatures`, per call (the shared @blk shows the first
// call's names); the attribute stays, so unflatten can run again.
// CHECK-LABEL: builtin.module attributes {graph.call_signatures = {blk = #graph.signature<("h", "x") -> ("o")>, "blk@1" = #graph.signature<("h2", "o") -> ("o2")>}}
// CHECK-LABEL: func.func @signatures(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xf32> {graph.name = "x"}, %[[W:[^:]*]]: tensor<4xf32> {graph.param = "blk.w"})
// CHECK-NEXT:    %[[H:.*]] = graph.neg %[[X]] {graph.name = "h"}
// CHECK-NEXT:    %[[A:.*]] = graph.mul %[[X]], %[[W]] {scope = #graph.scope<("blk", 0, "Block")>}
// CHECK-NEXT:    %[[O:.*]] = graph.add %[[A]], %[[H]] {graph.name = "o", scope = #graph.scope<("blk", 0, "Block")>}
// CHECK-NEXT:    %[[H2:.*]] = graph.neg %[[O]] {graph.name = "h2"}
// CHECK-NEXT:    %[[B:.*]] = graph.mul %[[O]], %[[W]] {scope = #graph.scope<("blk", 1, "Block")>}
// CHECK-NEXT:    %[[O2:.*]] = graph.add %[[B]], %[[H2]] {graph.name = "o2", scope = #graph.scope<("blk", 1, "Block")>}
// CHECK-NEXT:    func.return %[[O2]]
// CHECK-NOT:   func.func
module attributes {graph.call_signatures = {"blk" = #graph.signature<("h", "x") -> ("o")>, "blk@1" = #graph.signature<("h2", "o") -> ("o2")>}} {
  func.func @signatures(%x: tensor<4xf32> {graph.name = "x"}, %w: tensor<4xf32> {graph.param = "blk.w"}) -> tensor<4xf32> {
    %h = graph.neg %x {graph.name = "h"} : tensor<4xf32>
    %o = func.call @blk(%h, %x, %w) {graph.module = #graph.scope<("blk", 0, "Block")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %h2 = graph.neg %o {graph.name = "h2"} : tensor<4xf32>
    %o2 = func.call @blk(%h2, %o, %w) {graph.module = #graph.scope<("blk", 1, "Block")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %o2 : tensor<4xf32>
  }
  func.func private @blk(%a: tensor<4xf32> {graph.name = "h"}, %b: tensor<4xf32> {graph.name = "x"}, %v: tensor<4xf32> {graph.param = "w"}) -> tensor<4xf32> {
    %p = graph.mul %b, %v : tensor<4xf32>
    %q = graph.add %p, %a : tensor<4xf32>
    func.return %q : tensor<4xf32>
  }
}
