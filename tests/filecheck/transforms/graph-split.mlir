// RUN: not fxdsl-opt %s -p graph-split --split-input-file | filecheck %s
// RUN: not fxdsl-opt %s -p 'graph-split{keep-original-order=true}' --split-input-file | filecheck %s --check-prefix=KEEP
// RUN: not fxdsl-opt %s -p graph-split --split-input-file 2>&1 | filecheck %s --check-prefix=CYCLE

// The last chunk has a cycle, so every run exits with 1 after printing the
// other chunks (hence `not`); the CYCLE run checks the error line.

// torch.fx's split_module example: three partitions assigned round-robin over
// `z = relu(linear(x + param)); w = relu(linear(y)); return z + w`.
// Partition 0 has two outputs used by partition 1; partition 2 reads both
// partition 1 results. Arguments in order of first use, results in order of
// definition.

// CHECK-LABEL: func.func @doc(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>, %[[P:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-NEXT:    %[[S00:[^ ,]+]], %[[S01:[^ ,]+]] = func.call @submod_0(%[[X]], %[[P]], %[[Y]], %[[W]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    %[[S10:[^ ,]+]], %[[S11:[^ ,]+]] = func.call @submod_1(%[[S00]], %[[W]], %[[B]], %[[S01]]) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    %[[S2:.*]] = func.call @submod_2(%[[S10]], %[[S11]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[S2]] : tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @submod_0(%[[X0:[^ ,]+]]: tensor<4x8xf32>, %[[P0:[^ ,]+]]: tensor<4x8xf32>, %[[Y0:[^ ,]+]]: tensor<4x8xf32>, %[[W0:[^ ,]+]]: tensor<8x8xf32>, %[[B0:.*]]: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:    %[[ADD:.*]] = graph.add %[[X0]], %[[P0]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[LIN:.*]] = graph.linear %[[Y0]], %[[W0]], %[[B0]] :
// CHECK-NEXT:    func.return %[[ADD]], %[[LIN]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @submod_1(%[[A1:[^ ,]+]]: tensor<4x8xf32>, %[[W1:[^ ,]+]]: tensor<8x8xf32>, %[[B1:[^ ,]+]]: tensor<8xf32>, %[[L1:[^ ,]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[Z:.*]] = graph.linear %[[A1]], %[[W1]], %[[B1]] :
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[L1]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Z]], %[[R]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @submod_2(%[[Z2:[^ ,]+]]: tensor<4x8xf32>, %[[R2:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[RZ:.*]] = graph.relu %[[Z2]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = graph.add %[[RZ]], %[[R2]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[SUM]] : tensor<4x8xf32>
// CHECK-NOT:   graph.partition
func.func @doc(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %param: tensor<4x8xf32>,
               %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.add %x, %param {graph.partition = 0 : i64} : tensor<4x8xf32>
  %1 = graph.linear %0, %w, %b {graph.partition = 1 : i64}
         : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = graph.relu %1 {graph.partition = 2 : i64} : tensor<4x8xf32>
  %3 = graph.linear %y, %w, %b {graph.partition = 0 : i64}
         : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = graph.relu %3 {graph.partition = 1 : i64} : tensor<4x8xf32>
  %5 = graph.add %2, %4 {graph.partition = 2 : i64} : tensor<4x8xf32>
  func.return %5 : tensor<4x8xf32>
}

// -----

// Partition 2 depends on nothing but appears after partition 1, which needs
// partition 0. torch.fx's order (ready partitions first-in first-out, roots
// first) calls 0, 2, 1; keep-original-order calls them as they first appear.

// CHECK-LABEL: func.func @order(
// CHECK:         func.call @submod_0(
// CHECK-NEXT:    func.call @submod_2(
// CHECK-NEXT:    func.call @submod_1(
// KEEP-LABEL:  func.func @order(
// KEEP:          func.call @submod_0(
// KEEP-NEXT:     func.call @submod_1(
// KEEP-NEXT:     func.call @submod_2(
func.func @order(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>
  %b = graph.neg %a {graph.partition = 1 : i64} : tensor<4xf32>
  %c = graph.tanh %x {graph.partition = 2 : i64} : tensor<4xf32>
  func.return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// A partition whose value is used only by the return; an argument no
// partition uses stays in the signature. Partition 3 is dead and pure, so it
// is dropped; partition 4 only feeds 3, so it goes too, and so does the
// constant only 4 used.

// CHECK-LABEL: func.func @to_return(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[UNUSED:[^:]+]]: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = func.call @submod_0(%[[X]])
// CHECK-NEXT:    %[[B:.*]] = func.call @submod_1(%[[A]])
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @submod_0(
// CHECK-NEXT:    graph.exp
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @submod_1(
// CHECK-NEXT:    graph.sqrt
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  }
func.func @to_return(%x: tensor<4xf32>, %unused: tensor<2xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %k = graph.constant dense<5.0> : tensor<4xf32>
  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>
  %b = graph.sqrt %a {graph.partition = 1 : i64} : tensor<4xf32>
  %p = graph.mul %a, %k {graph.partition = 4 : i64} : tensor<4xf32>
  %dead = graph.add %b, %p {graph.partition = 3 : i64} : tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant used by two partitions is cloned into each, never passed; the
// original is gone from the parent. A constant the return uses stays.

// CHECK-LABEL: func.func @constants(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[K:.*]] = graph.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = func.call @submod_0(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = func.call @submod_1(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[B]], %[[K]]
// CHECK:       func.func private @submod_0(%[[X0:[^ ,]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[C0:.*]] = graph.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    graph.mul %[[X0]], %[[C0]] : tensor<4xf32>
// CHECK:       func.func private @submod_1(%[[A1:[^ ,]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[C1:.*]] = graph.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    graph.add %[[A1]], %[[C1]] : tensor<4xf32>
func.func @constants(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = graph.constant dense<2.0> : tensor<4xf32>
  %k = graph.constant dense<3.0> : tensor<4xf32>
  %a = graph.mul %x, %c {graph.partition = 0 : i64} : tensor<4xf32>
  %b = graph.add %a, %c {graph.partition = 1 : i64} : tensor<4xf32>
  func.return %b, %k : tensor<4xf32>, tensor<4xf32>
}

// -----

// A name that is taken gets a suffix; functions without the attribute are
// left alone.

// CHECK-LABEL: func.func @submod_0(
// CHECK-NEXT:    graph.neg
// CHECK-LABEL: func.func @taken(
// CHECK-NEXT:    func.call @submod_0_1(
// CHECK:       func.func private @submod_0_1(
func.func @submod_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
func.func @taken(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// 0 feeds 1 and 1 feeds 0 again: no order exists.

// CYCLE: error: graph-split: cycle exists between partitions 0 -> 1 -> 0
func.func @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>
  %b = graph.tanh %a {graph.partition = 1 : i64} : tensor<4xf32>
  %c = graph.add %a, %b {graph.partition = 0 : i64} : tensor<4xf32>
  func.return %c : tensor<4xf32>
}
