// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops=exp,add,mul,neg,reshape,transpose non-compute-ops=reshape,transpose}' | filecheck %s
// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops=exp,add,mul,neg,reshape,transpose non-compute-ops=reshape,transpose allow-single-node=true}' | filecheck %s --check-prefix=SINGLE
// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops=exp,add,mul,neg,reshape,transpose non-compute-ops=reshape,transpose single-node-ops=exp}' | filecheck %s --check-prefix=EXP
// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops=exp,add,mul,neg,reshape,transpose non-compute-ops=reshape,transpose outline=group}' | filecheck %s --check-prefix=GROUP
// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops="graph.*"}' | filecheck %s --check-prefix=ALL
// RUN: fxdsl-opt %s --split-input-file -p 'graph-partition{ops=exp,add,mul,neg,reshape,transpose non-compute-ops=reshape,transpose skip-horizontal-fusion=true}' | filecheck %s --check-prefix=SKIP

// The trap: exp -> tanh (unsupported) -> add, and exp -> add directly.
// Putting exp and add together would make the group both feed and consume
// tanh, so exp stays out; it is a single-node partition, kept only when
// single nodes are allowed (in general or for exp).

// CHECK-LABEL: func.func @trap(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = graph.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.tanh %[[A]] : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = func.call @fused_0(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @fused_0(%[[A0:[^:]+]]: tensor<4xf32>, %[[B0:[^:]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[C0:.*]] = graph.add %[[A0]], %[[B0]] : tensor<4xf32>
// CHECK-NEXT:    %[[D0:.*]] = graph.mul %[[C0]], %[[A0]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[D0]] : tensor<4xf32>
// CHECK-NEXT:  }

// SINGLE-LABEL: func.func @trap(
// SINGLE-NEXT:    %[[A:.*]] = func.call @fused_0(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// SINGLE-NEXT:    %[[B:.*]] = graph.tanh %[[A]] : tensor<4xf32>
// SINGLE-NEXT:    func.call @fused_1(%[[A]], %[[B]])
// SINGLE:       func.func private @fused_0(
// SINGLE-NEXT:    graph.exp
// SINGLE-NEXT:    func.return
// SINGLE:       func.func private @fused_1(
// SINGLE-NEXT:    graph.add
// SINGLE-NEXT:    graph.mul
// SINGLE-NEXT:    func.return

// EXP-LABEL:   func.func @trap(
// EXP-NEXT:      func.call @fused_0(
// EXP-NEXT:      graph.tanh
// EXP-NEXT:      func.call @fused_1(

// GROUP-LABEL: func.func @trap(
// GROUP-SAME:      %[[X:[^:]+]]: tensor<4xf32>)
// GROUP-NEXT:    %[[A:.*]] = graph.exp %[[X]] : tensor<4xf32>
// GROUP-NEXT:    %[[B:.*]] = graph.tanh %[[A]] : tensor<4xf32>
// GROUP-NEXT:    %[[D:.*]] = graph.fusion_group (%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// GROUP-NEXT:    ^bb0(%[[A0:[^:]+]]: tensor<4xf32>, %[[B0:[^:]+]]: tensor<4xf32>):
// GROUP-NEXT:      %[[C0:.*]] = graph.add %[[A0]], %[[B0]] : tensor<4xf32>
// GROUP-NEXT:      %[[D0:.*]] = graph.mul %[[C0]], %[[A0]] : tensor<4xf32>
// GROUP-NEXT:      graph.yield %[[D0]] : tensor<4xf32>
// GROUP-NEXT:    }
// GROUP-NEXT:    func.return %[[D]] : tensor<4xf32>
// GROUP-NOT:     func.func

// With every graph op supported nothing is left outside.
// ALL-LABEL:   func.func @trap(
// ALL-NEXT:      %[[D:.*]] = func.call @fused_0(%{{.*}})
// ALL-NEXT:      func.return %[[D]]
// ALL:         func.func private @fused_0(
// ALL-NEXT:      graph.exp
// ALL-NEXT:      graph.tanh
// ALL-NEXT:      graph.add
// ALL-NEXT:      graph.mul
// ALL-NEXT:      func.return
func.func @trap(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.tanh %a : tensor<4xf32>
  %c = graph.add %a, %b : tensor<4xf32>
  %d = graph.mul %c, %a : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Supported ops before and after the (unsupported) matmul stay apart (one
// group would both feed and read it); the chain beside them that shares no
// edge with either joins the one after it (torch.fx's horizontal fusion,
// tried from the last partition back), unless skip-horizontal-fusion.

// CHECK-LABEL: func.func @islands(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x4xf32>, %[[W:[^:]+]]: tensor<4x4xf32>)
// CHECK-NEXT:    %[[B:.*]] = func.call @fused_0(%[[X]])
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[B]], %[[W]]
// CHECK-NEXT:    %[[D:.*]], %[[F:.*]] = func.call @fused_1(%[[M]], %[[X]], %[[W]])
// CHECK-NEXT:    func.return %[[D]], %[[F]]
// CHECK:       func.func private @fused_0(
// CHECK-NEXT:    graph.exp
// CHECK-NEXT:    graph.neg
// CHECK-NEXT:    func.return
// CHECK:       func.func private @fused_1(
// CHECK-NEXT:    graph.exp
// CHECK-NEXT:    graph.add
// CHECK-NEXT:    graph.mul
// CHECK-NEXT:    graph.add
// CHECK-NEXT:    func.return

// SKIP-LABEL: func.func @islands(
// SKIP-SAME:      %[[X:[^:]+]]: tensor<4x4xf32>, %[[W:[^:]+]]: tensor<4x4xf32>)
// SKIP-NEXT:    %[[B:.*]] = func.call @fused_0(%[[X]])
// SKIP-NEXT:    %[[M:.*]] = graph.matmul %[[B]], %[[W]]
// SKIP-NEXT:    %[[D:.*]] = func.call @fused_1(%[[M]])
// SKIP-NEXT:    %[[F:.*]] = func.call @fused_2(%[[X]], %[[W]])
// SKIP-NEXT:    func.return %[[D]], %[[F]]
// SKIP:       func.func private @fused_2(
// SKIP-NEXT:    graph.mul
// SKIP-NEXT:    graph.add
// SKIP-NEXT:    func.return

// GROUP-LABEL: func.func @islands(
// GROUP-COUNT-2: graph.fusion_group
// GROUP-NOT:     graph.fusion_group
func.func @islands(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = graph.exp %x : tensor<4x4xf32>
  %b = graph.neg %a : tensor<4x4xf32>
  %m = graph.matmul %b, %w : tensor<4x4xf32>
  %c = graph.exp %m : tensor<4x4xf32>
  %d = graph.add %c, %m : tensor<4x4xf32>
  %e = graph.mul %x, %x : tensor<4x4xf32>
  %f = graph.add %e, %w : tensor<4x4xf32>
  func.return %d, %f : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// reshape and transpose are non-compute: the partition {reshape, reshape}
// and the lone transpose are dropped even when single nodes are allowed;
// {reshape, exp, reshape} has one compute op, so it is a single-node
// partition. With single nodes allowed, {reshape, reshape} (no compute of
// its own) joins it by horizontal fusion before the filter, as in torch.fx.

// CHECK-LABEL: func.func @non_compute(
// GROUP-LABEL: func.func @non_compute(
// CHECK-NOT:     func.call
// CHECK:         func.return
// SINGLE-LABEL: func.func @non_compute(
// SINGLE-NEXT:    %[[T:.*]] = graph.transpose
// SINGLE-NEXT:    %[[U:.*]] = graph.tanh %[[T]]
// SINGLE-NEXT:    %[[R2:.*]], %[[W:.*]] = func.call @fused_0(%{{.*}}, %[[U]])
// SINGLE-NEXT:    func.return %[[R2]], %[[W]]
// SINGLE:       func.func private @fused_0(
// SINGLE-NEXT:    graph.reshape
// SINGLE-NEXT:    graph.reshape
// SINGLE-NEXT:    graph.reshape
// SINGLE-NEXT:    graph.exp
// SINGLE-NEXT:    graph.reshape
// SINGLE-NEXT:    func.return
// SINGLE-NOT:   fused_1
func.func @non_compute(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r = graph.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>
  %r2 = graph.reshape %r : (tensor<16xf32>) -> tensor<4x4xf32>
  %t = graph.transpose %x perm [1, 0] : tensor<4x4xf32>
  %u = graph.tanh %t : tensor<4x4xf32>
  %v = graph.reshape %u : (tensor<4x4xf32>) -> tensor<16xf32>
  %e = graph.exp %v : tensor<16xf32>
  %w = graph.reshape %e : (tensor<16xf32>) -> tensor<4x4xf32>
  func.return %r2, %w : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A group that is not contiguous in program order ({exp, add}): the call
// goes where all its inputs are ready (after tanh, which feeds the group),
// and the op that uses the group's value (sin) moves after it.

// CHECK-LABEL: func.func @placement(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.tanh %[[X]]
// CHECK-NEXT:    %[[A:[^ ,]+]], %[[B:[^ ,]+]] = func.call @fused_0(%[[X]], %[[T]])
// CHECK-NEXT:    %[[S:.*]] = graph.sin %[[A]]
// CHECK-NEXT:    func.return %[[S]], %[[B]]
func.func @placement(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.exp %x : tensor<4xf32>
  %s = graph.sin %a : tensor<4xf32>
  %t = graph.tanh %x : tensor<4xf32>
  %b = graph.add %a, %t : tensor<4xf32>
  func.return %s, %b : tensor<4xf32>, tensor<4xf32>
}
