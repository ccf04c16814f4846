// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// graph.fusion_group / graph.yield, the scope attribute, graph.param args.

// CHECK-LABEL: func.func @group
// CHECK-SAME:  (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
func.func @group(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[R0:.*]], %[[R1:.*]] = graph.fusion_group (%[[X]], %[[B]]) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // CHECK-NEXT: ^{{.*}}(%[[P:.*]]: tensor<4x8xf32>, %[[Q:.*]]: tensor<8xf32>):
  // CHECK-NEXT:   %[[S:.*]] = graph.add %[[P]], %[[Q]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT:   %[[E:.*]] = graph.exp %[[S]] : tensor<4x8xf32>
  // CHECK-NEXT:   %[[M:.*]] = graph.sum %[[E]] dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK-NEXT:   graph.yield %[[E]], %[[M]] : tensor<4x8xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: func.return %[[R0]], %[[R1]] : tensor<4x8xf32>, tensor<4xf32>
  %r:2 = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %s = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %e = graph.exp %s : tensor<4x8xf32>
    %m = graph.sum %e dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    graph.yield %e, %m : tensor<4x8xf32>, tensor<4xf32>
  }
  func.return %r#0, %r#1 : tensor<4x8xf32>, tensor<4xf32>
}

// A group with no inputs (a constant producer) and one result; attributes on
// the group print before the signature.
// CHECK-LABEL: func.func @group_no_inputs
// CHECK-NEXT: %[[R:.*]] = graph.fusion_group () {kernel = "k0"} : () -> tensor<2xf32> {
// CHECK-NEXT:   %[[F:.*]] = graph.full value 1.000000e+00 : tensor<2xf32>
// CHECK-NEXT:   graph.yield %[[F]] : tensor<2xf32>
// CHECK-NEXT: }
func.func @group_no_inputs() -> tensor<2xf32> {
  %r = graph.fusion_group () {kernel = "k0"} : () -> tensor<2xf32> {
    %f = graph.full value 1.0 : tensor<2xf32>
    graph.yield %f : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @scoped
// CHECK-SAME:  (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<3x8xf32> {graph.param = "layers.0.fc.weight"})
// CHECK-NEXT: %[[Y:.*]] = graph.linear %[[X]], %[[W]] {scope = #graph.scope<("layers.0", 0, "Block"), ("layers.0.fc", 1, "Linear")>} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[Z:.*]] = graph.relu %[[Y]] {scope = #graph.scope<("layers.0", 0, "Block")>} : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = graph.neg %[[Z]] {scope = #graph.scope<>} : tensor<4x3xf32>
func.func @scoped(%x: tensor<4x8xf32>, %w: tensor<3x8xf32> {graph.param = "layers.0.fc.weight"}) -> tensor<4x3xf32> {
  %y = graph.linear %x, %w {scope = #graph.scope<("layers.0", 0, "Block"), ("layers.0.fc", 1, "Linear")>} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
  %z = graph.relu %y {scope = #graph.scope<("layers.0", 0, "Block")>} : tensor<4x3xf32>
  %n = graph.neg %z {scope = #graph.scope<>} : tensor<4x3xf32>
  func.return %n : tensor<4x3xf32>
}
