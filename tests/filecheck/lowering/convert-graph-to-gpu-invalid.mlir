// RUN: not fxdsl-opt %s -p convert-graph-to-gpu 2>&1 | filecheck %s
// RUN: not fxdsl-opt %s -p graph-bufferize 2>&1 | filecheck %s --check-prefix=BUF

// Control flow is not lowered: a clear error naming the function and where it
// is, not a traceback.
// CHECK: convert-graph-to-gpu-invalid.mlir:8:1: error: graph-wrap-kernels: @branches has 3 blocks; only single-block functions (no control flow) are supported
// BUF: convert-graph-to-gpu-invalid.mlir:8:1: error: graph-bufferize: @branches has 3 blocks
func.func @branches(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %t = graph.tanh %e : tensor<4xf32>
  func.return %t : tensor<4xf32>
^bb2:
  func.return %e : tensor<4xf32>
}
