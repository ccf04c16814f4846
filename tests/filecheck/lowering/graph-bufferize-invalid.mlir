// RUN: not fxdsl-opt %s -p graph-bufferize 2>&1 | filecheck %s

// An unwrapped compute op: graph-wrap-kernels must run first.
// CHECK: graph-bufferize-invalid.mlir:[[# @LINE + 2]]:3: error: graph-bufferize: graph.exp outside a fusion group; run graph-wrap-kernels first
func.func @unwrapped(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
