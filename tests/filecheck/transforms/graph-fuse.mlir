// RUN: fxdsl-opt %s -p graph-fuse | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fuse{horizontal=false}' | filecheck %s --check-prefix=NOH
// RUN: fxdsl-opt %s -p 'graph-fuse{max-args=4}' | filecheck %s --check-prefix=ARGS
// RUN: fxdsl-opt %s -p graph-decompose,graph-fuse | filecheck %s --check-prefix=DEC

// A chain of elementwise ops becomes one group.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[A]]
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:      %[[T:.*]] = graph.tanh %[[N]]
// CHECK-NEXT:      graph.yield %[[T]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = graph.exp %x : tensor<4x8xf32>
  %b = graph.neg %a : tensor<4x8xf32>
  %c = graph.tanh %b : tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// A diamond (one value read by two branches that join again) is one group.
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[A]]
// CHECK-NEXT:      %[[L:.*]] = graph.neg %[[E]]
// CHECK-NEXT:      %[[R:.*]] = graph.tanh %[[E]]
// CHECK-NEXT:      %[[S:.*]] = graph.add %[[L]], %[[R]]
// CHECK-NEXT:      graph.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @diamond(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = graph.exp %x : tensor<4x8xf32>
  %l = graph.neg %e : tensor<4x8xf32>
  %r = graph.tanh %e : tensor<4x8xf32>
  %s = graph.add %l, %r : tensor<4x8xf32>
  func.return %s : tensor<4x8xf32>
}

// A producer that is also used outside the group becomes a second output.
// CHECK-LABEL: func.func @outside_use
// CHECK-NEXT:    %[[G0:.*]], %[[G1:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK:           %[[E:.*]] = graph.exp
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:      graph.yield %[[E]], %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[G0]], %w
// CHECK-NEXT:    func.return %[[G1]], %[[M]]
func.func @outside_use(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = graph.exp %x : tensor<4x8xf32>
  %n = graph.neg %e : tensor<4x8xf32>
  %m = graph.matmul %e, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %n, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// The seed's fixpoint example: %1 = f(x); %2 = g(%1); %3 = h(%1); %4 = l(%3);
// return %4, %2 ends as ONE group with two outputs.
// CHECK-LABEL: func.func @fixpoint
// CHECK-NEXT:    %[[G0:.*]], %[[G1:.*]] = graph.fusion_group (%x)
// CHECK:           %[[F:.*]] = graph.exp
// CHECK-NEXT:      %[[GG:.*]] = graph.neg %[[F]]
// CHECK-NEXT:      %[[H:.*]] = graph.tanh %[[F]]
// CHECK-NEXT:      %[[L:.*]] = graph.relu %[[H]]
// CHECK-NEXT:      graph.yield %[[GG]], %[[L]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G1]], %[[G0]]
func.func @fixpoint(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %1 = graph.exp %x : tensor<4x8xf32>
  %2 = graph.neg %1 : tensor<4x8xf32>
  %3 = graph.tanh %1 : tensor<4x8xf32>
  %4 = graph.relu %3 : tensor<4x8xf32>
  func.return %4, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// A matmul is not fusible: it splits the elementwise ops into two groups.
// The constant is cloned into the group that reads it, not passed in.
// CHECK-LABEL: func.func @matmul_splits
// CHECK-NEXT:    %[[G1:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           graph.exp
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[G1]], %w
// CHECK-NEXT:    %[[G2:.*]] = graph.fusion_group (%[[M]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[C:.*]] = graph.constant dense<2.000000e+00>
// CHECK-NEXT:      %[[P:.*]] = graph.mul %[[A]], %[[C]]
// CHECK-NEXT:      %[[R:.*]] = graph.relu %[[P]]
// CHECK-NEXT:      graph.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G2]]
func.func @matmul_splits(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %1 = graph.exp %x : tensor<4x8xf32>
  %2 = graph.neg %1 : tensor<4x8xf32>
  %3 = graph.matmul %2, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %c = graph.constant dense<2.0> : tensor<4x8xf32>
  %4 = graph.mul %3, %c : tensor<4x8xf32>
  %5 = graph.relu %4 : tensor<4x8xf32>
  func.return %5 : tensor<4x8xf32>
}

// linear + gelu + residual: after graph-decompose the matmul stays outside and
// bias add, gelu and residual add form one group. Without decompose the
// linear is opaque and only gelu + residual fuse.
// CHECK-LABEL: func.func @linear_epilogue
// CHECK-NEXT:    %[[L:.*]] = graph.linear
// CHECK-NEXT:    graph.fusion_group (%[[L]], %r)
// CHECK:           graph.gelu
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.yield
// DEC-LABEL: func.func @linear_epilogue
// DEC-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// DEC-NEXT:    %[[M:.*]] = graph.matmul %x, %[[T]]
// DEC-NEXT:    %[[G:.*]] = graph.fusion_group (%[[M]], %b, %r) : (tensor<4x16xf32>, tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> {
// DEC-NEXT:    ^bb0(%[[A0:.*]]: tensor<4x16xf32>, %[[A1:.*]]: tensor<16xf32>, %[[A2:.*]]: tensor<4x16xf32>):
// DEC-NEXT:      %[[B:.*]] = graph.add %[[A0]], %[[A1]]
// DEC-NEXT:      %[[GE:.*]] = graph.gelu %[[B]] approximate "tanh"
// DEC-NEXT:      %[[RS:.*]] = graph.add %[[GE]], %[[A2]]
// DEC-NEXT:      graph.yield %[[RS]]
// DEC-NEXT:    }
// DEC-NEXT:    func.return %[[G]]
func.func @linear_epilogue(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %1 = graph.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = graph.gelu %1 approximate "tanh" : tensor<4x16xf32>
  %3 = graph.add %2, %r : tensor<4x16xf32>
  func.return %3 : tensor<4x16xf32>
}

// Attention-style softmax: scale, causal mask (a slice view of the mask
// input, select with -inf) and the softmax form one row-reduction group.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x, %m) : (tensor<2x4x8xf32>, tensor<8x8xi1>) -> tensor<2x4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x4x8xf32>, %[[MASK:.*]]: tensor<8x8xi1>):
// CHECK-DAG:       %[[SCALE:.*]] = graph.full value 1.250000e-01
// CHECK-DAG:       %[[NINF:.*]] = graph.full value -inf
// CHECK:           %[[S:.*]] = graph.mul %[[X]], %[[SCALE]]
// CHECK-NEXT:      %[[V:.*]] = graph.slice %[[MASK]]
// CHECK-NEXT:      %[[SEL:.*]] = graph.select %[[V]], %[[S]], %[[NINF]]
// CHECK-NEXT:      %[[SM:.*]] = graph.softmax %[[SEL]] dim 2
// CHECK-NEXT:      graph.yield %[[SM]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @softmax(%x: tensor<2x4x8xf32>, %m: tensor<8x8xi1>) -> tensor<2x4x8xf32> {
  %c = graph.full value 0.125 : tensor<f32>
  %1 = graph.mul %x, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %s = graph.slice %m start [0, 0] limit [4, 8] step [1, 1] : (tensor<8x8xi1>) -> tensor<4x8xi1>
  %ninf = graph.full value -inf : tensor<f32>
  %2 = graph.select %s, %1, %ninf : (tensor<4x8xi1>, tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = graph.softmax %2 dim 2 : tensor<2x4x8xf32>
  func.return %3 : tensor<2x4x8xf32>
}

// layer_norm with a residual-add prologue: one group, the sum is an extra output.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    %[[G0:.*]], %[[G1:.*]] = graph.fusion_group (%x, %y, %w, %b)
// CHECK:           %[[H:.*]] = graph.add
// CHECK-NEXT:      %[[N:.*]] = graph.layer_norm %[[H]]
// CHECK-NEXT:      graph.yield %[[H]], %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G1]], %[[G0]]
func.func @layer_norm(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = graph.add %x, %y : tensor<4x8xf32>
  %n = graph.layer_norm %h, %w, %b eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %n, %h : tensor<4x8xf32>, tensor<4x8xf32>
}

// x - x.mean(-1, keepdim): reduction and epilogue share the row space.
// CHECK-LABEL: func.func @center
// CHECK-NEXT:    graph.fusion_group (%x)
// CHECK:           graph.mean
// CHECK-NEXT:      graph.sub
// CHECK-NEXT:      graph.yield
func.func @center(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = graph.mean %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %c = graph.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// A reduction that drops its dim cannot feed its own row kernel (numpy would
// broadcast the row values along the columns), and reductions over different
// trailing dims need different kernels: nothing fuses here.
// CHECK-LABEL: func.func @incompatible_reductions
// CHECK-NOT:     graph.fusion_group
// CHECK:         func.return
func.func @incompatible_reductions(%x: tensor<4x4xf32>, %y: tensor<2x4x4xf32>) -> (tensor<4x4xf32>, tensor<2x1x1xf32>) {
  %m = graph.mean %x dims [1] : (tensor<4x4xf32>) -> tensor<4xf32>
  %c = graph.sub %x, %m : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %s = graph.sum %y dims [2] keepdim : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %t = graph.max %s dims [1, 2] keepdim : (tensor<2x4x1xf32>) -> tensor<2x1x1xf32>
  func.return %c, %t : tensor<4x4xf32>, tensor<2x1x1xf32>
}

// Horizontal fusion: two siblings reading %x fuse (one read of %x); with
// horizontal=false they stay apart.
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    %[[G0:.*]], %[[G1:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           graph.exp
// CHECK-NEXT:      graph.tanh
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G0]], %[[G1]]
// NOH-LABEL: func.func @siblings
// NOH-NEXT:    %[[E:.*]] = graph.exp %x
// NOH-NEXT:    %[[T:.*]] = graph.tanh %x
// NOH-NEXT:    func.return %[[E]], %[[T]]
func.func @siblings(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = graph.exp %x : tensor<4x8xf32>
  %t = graph.tanh %x : tensor<4x8xf32>
  func.return %e, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// Siblings that read only a one-element tensor do not fuse horizontally.
// CHECK-LABEL: func.func @scalar_siblings
// CHECK-NOT:     graph.fusion_group
// CHECK:         func.return
func.func @scalar_siblings(%x: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %e = graph.exp %x : tensor<1xf32>
  %t = graph.tanh %x : tensor<1xf32>
  func.return %e, %t : tensor<1xf32>, tensor<1xf32>
}

// max-args=4: the sum of five inputs needs 5 inputs + 1 output, so the chain
// splits into groups of at most 4 inputs + outputs.
// CHECK-LABEL: func.func @arg_limit
// CHECK-NEXT:    graph.fusion_group (%a, %b, %c, %d, %e) :
// CHECK-NOT:     graph.fusion_group
// CHECK:         func.return
// ARGS-LABEL: func.func @arg_limit
// ARGS-NEXT:    %[[G1:.*]] = graph.fusion_group (%a, %b, %c) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// ARGS:         %[[G2:.*]] = graph.fusion_group (%[[G1]], %d, %e) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// ARGS-NOT:     graph.fusion_group
// ARGS:         func.return %[[G2]]
func.func @arg_limit(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %d: tensor<8xf32>, %e: tensor<8xf32>) -> tensor<8xf32> {
  %1 = graph.add %a, %b : tensor<8xf32>
  %2 = graph.add %1, %c : tensor<8xf32>
  %3 = graph.add %2, %d : tensor<8xf32>
  %4 = graph.add %3, %e : tensor<8xf32>
  func.return %4 : tensor<8xf32>
}

// An existing group is merged whole into its consumer's group.
// CHECK-LABEL: func.func @merge_groups
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[S:.*]] = graph.add %[[A]], %[[B]]
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[S]]
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:      graph.yield %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @merge_groups(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.fusion_group (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = graph.add %a, %b : tensor<4xf32>
    %e = graph.exp %s : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  %n = graph.neg %g : tensor<4xf32>
  func.return %n : tensor<4xf32>
}

// A view joins a group only as a prologue of a group input and never becomes
// an output: the transpose read by the matmul stays a free view.
// CHECK-LABEL: func.func @view_not_output
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %x perm [1, 0]
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[T]], %x
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[T]]
// CHECK-NEXT:    func.return %[[M]], %[[E]]
func.func @view_not_output(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %t = graph.transpose %x perm [1, 0] : tensor<4x4xf32>
  %m = graph.matmul %t, %x : tensor<4x4xf32>
  %e = graph.exp %t : tensor<4x4xf32>
  func.return %m, %e : tensor<4x4xf32>, tensor<4x4xf32>
}

// Duplicate work inside a group is shared (CSE) and dead ops are dropped.
// CHECK-LABEL: func.func @cleanup
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[C:.*]] = graph.constant dense<3.000000e+00>
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[A]]
// CHECK-NEXT:      %[[M:.*]] = graph.mul %[[E]], %[[E]]
// CHECK-NEXT:      %[[P:.*]] = graph.add %[[M]], %[[C]]
// CHECK-NEXT:      graph.yield %[[P]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @cleanup(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = graph.constant dense<3.0> : tensor<4xf32>
  %c2 = graph.constant dense<3.0> : tensor<4xf32>
  %e1 = graph.exp %x : tensor<4xf32>
  %e2 = graph.exp %x : tensor<4xf32>
  %m = graph.mul %e1, %e2 : tensor<4xf32>
  %p = graph.add %m, %c1 : tensor<4xf32>
  %dead = graph.add %m, %c2 : tensor<4xf32>
  func.return %p : tensor<4xf32>
}

// An existing group holding a non-fusible op is kept as it is; calls are
// opaque too. Only exp + neg fuse.
// CHECK-LABEL: func.func @opaque_group_and_call
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x, %w)
// CHECK:           graph.matmul
// CHECK-NEXT:      graph.tanh
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[C:.*]] = func.call @callee(%[[G]])
// CHECK-NEXT:    %[[F:.*]] = graph.fusion_group (%[[C]])
// CHECK:           graph.exp
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]]
func.func private @callee(tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @opaque_group_and_call(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %g = graph.fusion_group (%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %m = graph.matmul %a, %b : tensor<4x4xf32>
    %t = graph.tanh %m : tensor<4x4xf32>
    graph.yield %t : tensor<4x4xf32>
  }
  %c = func.call @callee(%g) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = graph.exp %c : tensor<4x4xf32>
  %n = graph.neg %e : tensor<4x4xf32>
  func.return %n : tensor<4x4xf32>
}

// Each block of a multi-block function is fused on its own; values from a
// dominating block are group inputs.
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT:    %[[E:.*]], %[[N:.*]] = graph.fusion_group (%x)
// CHECK:           graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cf.cond_br
// CHECK-NEXT:  ^{{.*}}:
// CHECK-NEXT:    %[[R:.*]] = graph.fusion_group (%[[N]])
// CHECK:           graph.tanh
// CHECK-NEXT:      graph.relu
// CHECK:         func.return %[[R]]
// CHECK:         func.return %[[E]]
func.func @blocks(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  %n = graph.neg %e : tensor<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %t = graph.tanh %n : tensor<4xf32>
  %r = graph.relu %t : tensor<4xf32>
  func.return %r : tensor<4xf32>
^bb2:
  func.return %e : tensor<4xf32>
}

// Bad options are an `error:` and exit code 1, never a traceback.
// RUN: not fxdsl-opt %s -p 'graph-fuse{max-args=0}' 2>&1 | filecheck %s --check-prefix=ERR0
// ERR0: error: graph-fuse: max-args must be an integer >= 1, got 0
// RUN: not fxdsl-opt %s -p 'graph-fuse{max-args=abc}' 2>&1 | filecheck %s --check-prefix=ERRABC
// ERRABC: error: {{.*}}abc
// ERRABC-NOT: Traceback
// RUN: not fxdsl-opt %s -p 'graph-fuse{max-ops-per-group=-1}' 2>&1 | filecheck %s --check-prefix=ERRNEG
// ERRNEG: error: graph-fuse: max-ops-per-group must be an integer >= 1, got -1
