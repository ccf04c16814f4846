// RUN: not fxdsl-opt %s 2>&1 | filecheck %s
// RUN: not fxdsl-opt %s -p cse 2>&1 | filecheck %s

// A verifier error points at the op's own line and column (inside a func),
// on one `error:` line, and the driver exits with 1 without a traceback.

// CHECK-NOT: Traceback
// CHECK: fxdsl-opt-errors.mlir:[[# @LINE + 4]]:5: error: graph.matmul: contracting dims differ: lhs tensor<4x8xf32> has 8, rhs tensor<7x3xf32> has 7
// CHECK-NOT: Traceback
func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) -> tensor<4x3xf32> {
  %n = graph.neg %a : tensor<4x8xf32>
    %c = graph.matmul %n, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  func.return %c : tensor<4x3xf32>
}
