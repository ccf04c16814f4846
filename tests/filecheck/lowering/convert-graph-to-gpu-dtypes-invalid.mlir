// RUN: not fxdsl-opt %s -p convert-graph-to-gpu 2>&1 | filecheck %s

// Kernels compute in f32, f16, bf16, i64, i32 and i1 only; a graph op on
// another graph element type (f64, i16, i8, ui8) runs on the reference
// interpreter, and lowering it is a clear error at the op, never a kernel
// that computes an f64 in f32 (tests/lowering/test_convert_graph_to_gpu.py
// checks the integer types).

// CHECK: convert-graph-to-gpu-dtypes-invalid.mlir:[[# @LINE + 2]]:3: error: graph-wrap-kernels: graph.exp has a tensor of element type f64, which GPU kernels do not compute in yet (only the reference interpreter runs it)
func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = graph.exp %x : tensor<4xf64>
  func.return %y : tensor<4xf64>
}
