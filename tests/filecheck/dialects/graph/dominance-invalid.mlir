// RUN: fxdsl-opt %s --verify-diagnostics --split-input-file | filecheck %s

// SSA dominance, which xDSL's verifier leaves out (its parser resolves
// forward references): a use before the definition, a cycle, an op using
// its own result, and a use in a block the definition does not dominate are
// errors at the use. Uses in dominated blocks and nested regions verify.

func.func @use_before_def(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: dominance-invalid.mlir:[[# @LINE + 1]]:3: error: graph.neg: operand #0 does not dominate this use (defined by graph.exp)
  %b = graph.neg %a : tensor<4xf32>
  %a = graph.exp %x : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

func.func @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: dominance-invalid.mlir:[[# @LINE + 1]]:3: error: graph.add: operand #1 does not dominate this use (defined by graph.neg)
  %a = graph.add %x, %b : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

func.func @own_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: dominance-invalid.mlir:[[# @LINE + 1]]:3: error: graph.add: operand #1 does not dominate this use (defined by graph.add)
  %a = graph.add %x, %a : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

func.func @sibling_block(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^left, ^right
^left:
  %a = graph.exp %x : tensor<4xf32>
  cf.br ^join
^right:
  cf.br ^join
^join:
  // CHECK: dominance-invalid.mlir:[[# @LINE + 1]]:3: error: func.return: operand #0 does not dominate this use (defined by graph.exp)
  func.return %a : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @dominated_block
// CHECK:         %[[A:.*]] = graph.exp
// CHECK:         func.return %[[A]]
func.func @dominated_block(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  cf.br ^next
^next:
  func.return %a : tensor<4xf32>
}
