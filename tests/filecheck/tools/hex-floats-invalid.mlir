// RUN: not fxdsl-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: fxdsl-opt %s --split-input-file --parsing-diagnostics | filecheck %s --check-prefix=DIAG

// A bit pattern wider than the element type, or with a sign, is an error at
// the literal, not a value.

// CHECK-NOT: Traceback
// CHECK: hex-floats-invalid.mlir:[[# @LINE + 4]]:30: error: 0x1ffff is wider than f16's 16 bits
// DIAG: hex-floats-invalid.mlir:[[# @LINE + 3]]:30
// DIAG: 0x1ffff is wider than f16's 16 bits
func.func @f() -> tensor<1xf16> {
  %c = graph.constant dense<[0x1FFFF]> : tensor<1xf16>
  func.return %c : tensor<1xf16>
}

// -----

// DIAG: hex-floats-invalid.mlir:[[# @LINE + 3]]:30
// DIAG: a hexadecimal float literal is a bit pattern: no sign
func.func @g() -> tensor<1xf32> {
  %c = graph.constant dense<[-0x7F800000]> : tensor<1xf32>
  func.return %c : tensor<1xf32>
}
