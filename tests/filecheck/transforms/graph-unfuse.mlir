// RUN: fxdsl-opt %s -p graph-unfuse | filecheck %s
// RUN: fxdsl-opt %s -p graph-fuse,graph-unfuse | filecheck %s --check-prefix=ROUND

// A group's body is inlined in place: block arguments become the operands,
// results the yielded values.
// CHECK-LABEL: func.func @inline
// CHECK-NEXT:    %[[S:.*]] = graph.add %x, %y : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[S]] : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.neg %[[E]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[N]], %[[S]]
// CHECK-NOT:     graph.fusion_group
func.func @inline(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %g:2 = graph.fusion_group (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = graph.add %a, %b : tensor<4xf32>
    %e = graph.exp %s : tensor<4xf32>
    graph.yield %e, %s : tensor<4xf32>, tensor<4xf32>
  }
  %n = graph.neg %g#0 : tensor<4xf32>
  func.return %n, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// Round trip: fuse then unfuse gives the original ops back, in order, with the
// constant cloned into the group now in front of its reader.
// ROUND-LABEL: func.func @round_trip
// ROUND-NEXT:    %[[E:.*]] = graph.exp %x
// ROUND-NEXT:    %[[N:.*]] = graph.neg %[[E]]
// ROUND-NEXT:    %[[M:.*]] = graph.matmul %[[N]], %w
// ROUND-NEXT:    %[[C:.*]] = graph.constant dense<2.000000e+00>
// ROUND-NEXT:    %[[P:.*]] = graph.mul %[[M]], %[[C]]
// ROUND-NEXT:    %[[R:.*]] = graph.relu %[[P]]
// ROUND-NEXT:    func.return %[[R]], %[[E]]
// ROUND-NOT:     graph.fusion_group
func.func @round_trip(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %1 = graph.exp %x : tensor<4x8xf32>
  %2 = graph.neg %1 : tensor<4x8xf32>
  %3 = graph.matmul %2, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %c = graph.constant dense<2.0> : tensor<4x8xf32>
  %4 = graph.mul %3, %c : tensor<4x8xf32>
  %5 = graph.relu %4 : tensor<4x8xf32>
  func.return %5, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
