// RUN: fxdsl-opt %s -p 'graph-pipeline-stages{cuts=l1,l2}' | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-pipeline-stages{stages=2}' | filecheck %s --check-prefix=BAL
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{stages=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{stages=two}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{stages=9}' 2>&1 | filecheck %s --check-prefix=MANY
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{cuts=l7}' 2>&1 | filecheck %s --check-prefix=SCOPE
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{cuts=l2,l1}' 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not fxdsl-opt %s -p 'graph-pipeline-stages{stages=5 cuts=l1}' 2>&1 | filecheck %s --check-prefix=COUNT

// Three layers cut by hand at scopes l1 and l2. %y is used only by the last
// stage, so stages 0 and 1 pass it through (first, in the order received);
// weight %w0 is used by stages 0 and 2 (tied, like GPT-2's embedding and
// lm_head): both take it as an argument, none returns it. The constant is
// cloned into the stage that uses it.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[W0:[^:]+]]: tensor<8x8xf32> {graph.param = "l0.weight"}, %[[W1:[^:]+]]: tensor<8x8xf32> {graph.param = "l1.weight"}, %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[A0:[^ ,]+]], %[[A1:[^ ,]+]] = func.call @stage_0(%[[W0]], %[[X]], %[[Y]])
// CHECK-NEXT:    %[[B0:[^ ,]+]], %[[B1:[^ ,]+]] = func.call @stage_1(%[[W1]], %[[A0]], %[[A1]])
// CHECK-NEXT:    %[[C:[^ ,]+]] = func.call @stage_2(%[[W0]], %[[B0]], %[[B1]])
// CHECK-NEXT:    func.return %[[C]] : tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @stage_0(%[[SW0:[^:]+]]: tensor<8x8xf32> {graph.param = "l0.weight"}, %[[SX:[^:]+]]: tensor<4x8xf32>, %[[SY:[^:]+]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:    %[[M:[^ ]+]] = graph.matmul %[[SX]], %[[SW0]]
// CHECK-NEXT:    %[[R:[^ ]+]] = graph.relu %[[M]]
// CHECK-NEXT:    func.return %[[SY]], %[[R]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @stage_1(%[[TW1:[^:]+]]: tensor<8x8xf32> {graph.param = "l1.weight"}, %[[TY:[^:]+]]: tensor<4x8xf32>, %[[TB:[^:]+]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:    %[[M1:[^ ]+]] = graph.matmul %[[TB]], %[[TW1]]
// CHECK-NEXT:    func.return %[[TY]], %[[M1]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @stage_2(%[[UW0:[^:]+]]: tensor<8x8xf32> {graph.param = "l0.weight"}, %[[UY:[^:]+]]: tensor<4x8xf32>, %[[UC:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[K:[^ ]+]] = graph.constant
// CHECK-NEXT:    %[[D:[^ ]+]] = graph.add %[[UC]], %[[UY]]
// CHECK-NEXT:    %[[E:[^ ]+]] = graph.mul %[[D]], %[[K]]
// CHECK-NEXT:    %[[F:[^ ]+]] = graph.matmul %[[E]], %[[UW0]]
// CHECK-NEXT:    func.return %[[F]] : tensor<4x8xf32>
// CHECK-NEXT:  }

// Balanced by the cost model: the three matmuls dominate, and the cut
// lands where one activation (not two) crosses.
// BAL-LABEL: func.func @chain(
// BAL-NEXT:    %[[S0:[^ ]+]] = func.call @stage_0(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^)]+}}) : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// BAL-NEXT:    %[[S1:[^ ]+]] = func.call @stage_1(%{{[^,]+}}, %[[S0]])
// BAL-NEXT:    func.return %[[S1]]
// BAL:       func.func private @stage_1(
// BAL-NEXT:    graph.constant
// BAL-NEXT:    graph.mul
// BAL-NEXT:    graph.matmul
// BAL-NEXT:    func.return

// ZERO: error: graph-pipeline-stages: stages must be a positive integer, got 0
// TYPE: error: graph-pipeline-stages: option stages expects an integer, got two
// MANY: error: graph-pipeline-stages: 9 stages asked, but @chain has only 6 ops
// SCOPE: error: graph-pipeline-stages: no op is in scope 'l7'
// ORDER: error: graph-pipeline-stages: cut 'l1' does not start after the previous cut
// COUNT: error: graph-pipeline-stages: 1 cuts make 2 stages, but stages=5

func.func @chain(%w0: tensor<8x8xf32> {graph.param = "l0.weight"}, %w1: tensor<8x8xf32> {graph.param = "l1.weight"}, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = graph.matmul %x, %w0 {scope = #graph.scope<("l0", 0, "Linear")>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = graph.relu %a {scope = #graph.scope<("l0", 0, "Linear")>} : tensor<4x8xf32>
  %c = graph.matmul %b, %w1 {scope = #graph.scope<("l1", 0, "Linear")>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %k = graph.constant dense<2.0> : tensor<4x8xf32>
  %d = graph.add %c, %y {scope = #graph.scope<("l2", 0, "Add")>} : tensor<4x8xf32>
  %e = graph.mul %d, %k {scope = #graph.scope<("l2", 0, "Add")>} : tensor<4x8xf32>
  %f = graph.matmul %e, %w0 {scope = #graph.scope<("l2", 0, "Add")>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %f : tensor<4x8xf32>
}
