// RUN: not fxdsl-opt %s 2>&1 | filecheck %s
// RUN: not fxdsl-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: fxdsl-opt %s --split-input-file --parsing-diagnostics | filecheck %s --check-prefix=DIAG
// DIAG: func.func @ok

// A parse error is `file:line:col: error: message` followed by the source
// line and a caret; with --split-input-file the line counts from the file's
// start, not the chunk's.

func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK-NOT: Traceback
// CHECK: fxdsl-opt-parse-error.mlir:[[# @LINE + 6]]:34: error: Expected '>' after builtin parameter list
// CHECK-NEXT: %y = graph.neg %x : tensor<4xf32 : tensor<4xf32>
// CHECK-NEXT: {{^ {33}\^$}}
// SPLIT: fxdsl-opt-parse-error.mlir:[[# @LINE + 3]]:34: error:
// DIAG: fxdsl-opt-parse-error.mlir:[[# @LINE + 2]]:34
// DIAG: Expected '>' after builtin parameter list
%y = graph.neg %x : tensor<4xf32 : tensor<4xf32>

// -----

// A malformed scope attribute (a frame needs fqn, call index and type name).
// DIAG: fxdsl-opt-parse-error.mlir:[[# @LINE + 3]]:48
// DIAG: Expected ','
%x = "test.op"() : () -> (tensor<4xf32>)
%z = graph.neg %x {scope = #graph.scope<("a", 0)>} : tensor<4xf32>
