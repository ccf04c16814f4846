// RUN: not fxdsl-opt %s -p convert-graph-to-gpu 2>&1 | filecheck %s

// A tensor made by another dialect has no buffer to stand for: a located
// error, not a crash.
// CHECK: graph-bufferize-foreign.mlir:[[# @LINE + 2]]:3: error: graph-bufferize: cannot bufferize test.op: only graph-dialect tensor programs are supported
func.func @foreign() -> tensor<4xf32> {
  %t = "test.op"() : () -> tensor<4xf32>
  %e = graph.exp %t : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
