// RUN: fxdsl-opt %s -p graph-dedup | filecheck %s
// RUN: fxdsl-opt %s -p graph-dedup | fxdsl-opt -p graph-dedup | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-dedup{min-copies=3}' | filecheck %s --check-prefix=COPIES3
// RUN: fxdsl-opt %s -p 'graph-dedup{min-ops=4}' | filecheck %s --check-prefix=OPS4
// RUN: fxdsl-opt %s -p 'graph-dedup{min-ops=1}' | filecheck %s --check-prefix=OPS1
// RUN: not fxdsl-opt %s -p 'graph-dedup{min-ops=0}' 2>&1 | filecheck %s --check-prefix=BAD-OPS
// RUN: not fxdsl-opt %s -p 'graph-dedup{min-copies=1}' 2>&1 | filecheck %s --check-prefix=BAD-COPIES
// RUN: not fxdsl-opt %s -p 'graph-dedup{min-ops=many}' 2>&1 | filecheck %s --check-prefix=BAD-TYPE
// RUN: not fxdsl-opt %s -p 'graph-dedup{max-ops=3}' 2>&1 | filecheck %s --check-prefix=BAD-NAME

// The second RUN line checks idempotence: a second run changes nothing.

// BAD-OPS: error: graph-dedup: min-ops must be >= 1, got 0
// BAD-COPIES: error: graph-dedup: min-copies must be >= 2 (one copy is not a duplicate), got 1
// BAD-TYPE: error: graph-dedup: option min-ops expects an integer, got many
// BAD-NAME: error: graph-dedup: unknown option max-ops (options: min-ops, min-copies

// Two identical chains on different inputs: one function, two calls; the
// argument is the chain's only external input (used twice inside).

// CHECK-LABEL: func.func @two_chains(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = func.call @[[F]](%[[Y]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[C]], %[[D]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @[[F]](%[[A:[^:]+]]: tensor<4xf32>) -> tensor<4xf32> attributes {graph.dedup} {
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[A]] : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.neg %[[E]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[N]], %[[A]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<4xf32>
// CHECK-NEXT:  }
// COPIES3-LABEL: func.func @two_chains(
// COPIES3-NOT:   func.call
// COPIES3:       func.return
// OPS4-LABEL: func.func @two_chains(
// OPS4-NOT:   func.call
// OPS4:       func.return

func.func @two_chains(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  %c = graph.add %b, %x : tensor<4xf32>
  %d = graph.exp %y : tensor<4xf32>
  %e = graph.neg %d : tensor<4xf32>
  %f = graph.add %e, %y : tensor<4xf32>
  func.return %c, %f : tensor<4xf32>, tensor<4xf32>
}

// Three copies; provenance is ignored when comparing (the third copy has no
// scope at all). The outlined ops keep the representative's (first copy's)
// scopes; each call gets the common prefix of its own copy's scopes.

// CHECK-LABEL: func.func @three_chains(
// CHECK-NEXT:    %[[X:.*]], %[[Y:.*]], %[[Z:.*]] = "test.op"()
// CHECK-NEXT:    %[[A:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]]) {scope = #graph.scope<("layers.0", 0, "Block")>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[B:.*]] = func.call @[[F]](%[[Y]]) {scope = #graph.scope<("layers.1", 0, "Block")>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[C:.*]] = func.call @[[F]](%[[Z]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @[[F]](%[[P:[^:]+]]: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {graph.dedup} {
// CHECK-NEXT:    %[[T:.*]] = graph.tanh %[[P]] {scope = #graph.scope<("layers.0", 0, "Block"), ("layers.0.act", 0, "Act")>} : tensor<2x4xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.sum %[[T]] dims [1] keepdim {scope = #graph.scope<("layers.0", 0, "Block")>}
// CHECK-NEXT:    %[[D:.*]] = graph.sub %[[T]], %[[S]] {scope = #graph.scope<("layers.0", 0, "Block")>}
// CHECK-NEXT:    func.return %[[D]] : tensor<2x4xf32>
// CHECK-NEXT:  }
// COPIES3-LABEL: func.func @three_chains(
// COPIES3:       func.call @[[F:dedup_[0-9]+]](
// COPIES3-NEXT:  func.call @[[F]](
// COPIES3-NEXT:  func.call @[[F]](
// OPS4-LABEL: func.func @three_chains(
// OPS4-NOT:   func.call
// OPS4:       func.return

func.func @three_chains() -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %x, %y, %z = "test.op"() : () -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  %a0 = graph.tanh %x {scope = #graph.scope<("layers.0", 0, "Block"), ("layers.0.act", 0, "Act")>} : tensor<2x4xf32>
  %a1 = graph.sum %a0 dims [1] keepdim {scope = #graph.scope<("layers.0", 0, "Block")>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %a2 = graph.sub %a0, %a1 {scope = #graph.scope<("layers.0", 0, "Block")>} : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %b0 = graph.tanh %y {scope = #graph.scope<("layers.1", 0, "Block"), ("layers.1.act", 0, "Act")>} : tensor<2x4xf32>
  %b1 = graph.sum %b0 dims [1] keepdim {scope = #graph.scope<("layers.1", 0, "Block")>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %b2 = graph.sub %b0, %b1 {scope = #graph.scope<("layers.1", 0, "Block")>} : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %c0 = graph.tanh %z : tensor<2x4xf32>
  %c1 = graph.sum %c0 dims [1] keepdim : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %c2 = graph.sub %c0, %c1 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  func.return %a2, %b2, %c2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// Only the second copy uses its middle value (%b1) outside: the function
// returns it anyway (union over copies) and the first call ignores it.

// CHECK-LABEL: func.func @union_of_outputs(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %{{.*}}, %[[A2:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[B1:.*]], %[[B2:.*]] = func.call @[[F]](%[[Y]])
// CHECK-NEXT:    %[[U:.*]] = graph.abs %[[B1]]
// CHECK-NEXT:    func.return %[[A2]], %[[B2]], %[[U]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @[[F]](%[[P:[^:]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[P]]
// CHECK-NEXT:    %[[N:.*]] = graph.neg %[[E]]
// CHECK-NEXT:    %[[M:.*]] = graph.mul %[[N]], %[[N]]
// CHECK-NEXT:    func.return %[[N]], %[[M]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @union_of_outputs(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %a2 = graph.mul %a1, %a1 : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  %b2 = graph.mul %b1, %b1 : tensor<4xf32>
  %use = graph.abs %b1 : tensor<4xf32>
  func.return %a2, %b2, %use : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Both copies read %w: it is an argument of every call.

// CHECK-LABEL: func.func @shared_input(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]], %[[W]])
// CHECK-NEXT:    %[[B:.*]] = func.call @[[F]](%[[Y]], %[[W]])
// CHECK-NEXT:    func.return %[[A]], %[[B]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @[[F]](%[[P:[^:]+]]: tensor<4xf32>, %[[Q:[^:]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.mul %[[P]], %[[Q]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[M]], %[[Q]]
// CHECK-NEXT:    func.return %[[S]]

func.func @shared_input(%x: tensor<4xf32>, %y: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.mul %x, %w : tensor<4xf32>
  %a1 = graph.add %a0, %w : tensor<4xf32>
  %b0 = graph.mul %y, %w : tensor<4xf32>
  %b1 = graph.add %b0, %w : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}

// External inputs may differ between copies: the first copy reads %x three
// times, the second %y, %w, %y. Uses share an argument only where every copy
// reads one value there (first and third use), in order of first use.

// CHECK-LABEL: func.func @different_sharing(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    func.call @[[F:dedup_[0-9]+]](%[[X]], %[[X]])
// CHECK-NEXT:    func.call @[[F]](%[[Y]], %[[W]])
// CHECK:       func.func private @[[F]](%[[P:[^:]+]]: tensor<4xf32>, %[[Q:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[M:.*]] = graph.mul %[[P]], %[[Q]]
// CHECK-NEXT:    graph.add %[[M]], %[[P]]

func.func @different_sharing(%x: tensor<4xf32>, %y: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.mul %x, %x : tensor<4xf32>
  %a1 = graph.add %a0, %x : tensor<4xf32>
  %b0 = graph.mul %y, %w : tensor<4xf32>
  %b1 = graph.add %b0, %y : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}

// Near-identical regions that must not merge: a property differs (gelu's
// `approximate`), a discardable attribute differs, the dtype differs, the
// internal wiring differs (mul reads the exp twice vs. exp and the input).
// What is left alike (the neg, the exp) is one op: below min-ops.

// CHECK-LABEL: func.func @different_attribute(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @different_attribute(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.gelu %x approximate "tanh" : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %b0 = graph.gelu %y : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}


// CHECK-LABEL: func.func @different_discardable_attribute(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @different_discardable_attribute(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x {tag = 1 : i64} : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %b0 = graph.exp %y {tag = 2 : i64} : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}


// CHECK-LABEL: func.func @different_dtype(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @different_dtype(%x: tensor<4xf32>, %y: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf16>
  %b1 = graph.neg %b0 : tensor<4xf16>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf16>
}


// CHECK-LABEL: func.func @different_wiring(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @different_wiring(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %a1 = graph.mul %a0, %a0 : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %b1 = graph.mul %b0, %y : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}

// An op without a pure trait never joins a region: it splits each copy into
// two one-op pieces (kept at min-ops=2, outlined separately at min-ops=1).

// CHECK-LABEL: func.func @side_effects_stay_out(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private
// OPS1-LABEL: func.func @side_effects_stay_out(
// OPS1-NEXT:    %[[A0:.*]] = func.call @[[EXP:dedup_[0-9]+]](%{{.*}})
// OPS1-NEXT:    %[[A1:.*]] = "test.op"(%[[A0]])
// OPS1-NEXT:    func.call @[[NEG:dedup_[0-9]+]](%[[A1]])
// OPS1-NEXT:    %[[B0:.*]] = func.call @[[EXP]](%{{.*}})
// OPS1-NEXT:    %[[B1:.*]] = "test.op"(%[[B0]])
// OPS1-NEXT:    func.call @[[NEG]](%[[B1]])

func.func @side_effects_stay_out(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %a1 = "test.op"(%a0) : (tensor<4xf32>) -> tensor<4xf32>
  %a2 = graph.neg %a1 : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %b1 = "test.op"(%b0) : (tensor<4xf32>) -> tensor<4xf32>
  %b2 = graph.neg %b1 : tensor<4xf32>
  func.return %a2, %b2 : tensor<4xf32>, tensor<4xf32>
}

// The copies {exp, neg, add} are identical, but the add reads the neg
// through an op outside the copy (tanh / sigmoid): one call for all three ops
// would be a cycle. The region shrinks to {exp, neg}.

// CHECK-LABEL: func.func @shrunk_to_avoid_cycle(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[TA:.*]] = graph.tanh %[[A]]
// CHECK-NEXT:    graph.add %[[A]], %[[TA]]
// CHECK-NEXT:    %[[B:.*]] = func.call @[[F]](%[[Y]])
// CHECK-NEXT:    %[[TB:.*]] = graph.sigmoid %[[B]]
// CHECK-NEXT:    graph.add %[[B]], %[[TB]]
// CHECK:       func.func private @[[F]](
// CHECK-NEXT:    graph.exp
// CHECK-NEXT:    graph.neg
// CHECK-NEXT:    func.return

func.func @shrunk_to_avoid_cycle(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %ta = graph.tanh %a1 : tensor<4xf32>
  %a2 = graph.add %a1, %ta : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  %tb = graph.sigmoid %b1 : tensor<4xf32>
  %b2 = graph.add %b1, %tb : tensor<4xf32>
  func.return %a2, %b2 : tensor<4xf32>, tensor<4xf32>
}

// Copies A = {%a0, %a1} and B = {%b0, %b1} are each fine alone, but each
// reads the other's exp: calling both would be a cycle A -> B -> A. B stays
// inline; A and C become calls. A's exp is used outside (by B): a result.

// CHECK-LABEL: func.func @crossed_copy_skipped(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[Z:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[B0:.*]] = graph.exp %[[Y]]
// CHECK-NEXT:    %[[A0:.*]], %[[A1:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]], %[[B0]])
// CHECK-NEXT:    %[[B1:.*]] = graph.add %[[B0]], %[[A0]]
// CHECK-NEXT:    %{{.*}}, %[[C1:.*]] = func.call @[[F]](%[[Z]], %[[X]])
// CHECK-NEXT:    func.return %[[A1]], %[[B1]], %[[C1]]
// CHECK:       func.func private @[[F]](%[[P:[^:]+]]: tensor<4xf32>, %[[Q:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[P]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[E]], %[[Q]]
// CHECK-NEXT:    func.return %[[E]], %[[S]]

func.func @crossed_copy_skipped(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %a1 = graph.add %a0, %b0 : tensor<4xf32>
  %b1 = graph.add %b0, %a0 : tensor<4xf32>
  %c0 = graph.exp %z : tensor<4xf32>
  %c1 = graph.add %c0, %x : tensor<4xf32>
  func.return %a1, %b1, %c1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The same crossing with only two copies: one call would be left, below
// min-copies, so nothing changes.

// CHECK-LABEL: func.func @crossed_pair_unchanged(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @crossed_pair_unchanged(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.exp %x : tensor<4xf32>
  %b0 = graph.exp %y : tensor<4xf32>
  %a1 = graph.add %a0, %b0 : tensor<4xf32>
  %b1 = graph.add %b0, %a0 : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}

// Layer i feeds layer i+1; the residual input is used twice inside a layer
// (one argument). The boundary is each layer's input, not inside the next.

// CHECK-LABEL: func.func @layer_chain(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x4xf32>, %[[W:[^:]+]]: tensor<4x4xf32>)
// CHECK-NEXT:    %[[L0:.*]] = func.call @[[F:dedup_[0-9]+]](%[[X]], %[[W]])
// CHECK-NEXT:    %[[L1:.*]] = func.call @[[F]](%[[L0]], %[[W]])
// CHECK-NEXT:    %[[L2:.*]] = func.call @[[F]](%[[L1]], %[[W]])
// CHECK-NEXT:    %[[O:.*]] = graph.neg %[[L2]]
// CHECK-NEXT:    func.return %[[O]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @[[F]](%[[P:[^:]+]]: tensor<4x4xf32>, %[[Q:[^:]+]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[P]], %[[Q]]
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[M]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[R]], %[[P]]
// CHECK-NEXT:    func.return %[[S]]
// COPIES3-LABEL: func.func @layer_chain(
// COPIES3-COUNT-3: func.call @[[F:dedup_[0-9]+]](

func.func @layer_chain(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a0 = graph.matmul %x, %w : tensor<4x4xf32>
  %a1 = graph.relu %a0 : tensor<4x4xf32>
  %a2 = graph.add %a1, %x : tensor<4x4xf32>
  %b0 = graph.matmul %a2, %w : tensor<4x4xf32>
  %b1 = graph.relu %b0 : tensor<4x4xf32>
  %b2 = graph.add %b1, %a2 : tensor<4x4xf32>
  %c0 = graph.matmul %b2, %w : tensor<4x4xf32>
  %c1 = graph.relu %c0 : tensor<4x4xf32>
  %c2 = graph.add %c1, %b2 : tensor<4x4xf32>
  %out = graph.neg %c2 : tensor<4x4xf32>
  func.return %out : tensor<4x4xf32>
}

// Nothing repeats (the two exps alone are below min-ops): unchanged.

// CHECK-LABEL: func.func @nothing_to_dedup(
// CHECK-NEXT:    %[[A:.*]] = graph.exp
// CHECK-NEXT:    %[[B:.*]] = graph.neg %[[A]]
// CHECK-NEXT:    %[[C:.*]] = graph.exp %[[B]]
// CHECK-NEXT:    %[[D:.*]] = graph.sqrt %[[C]]
// CHECK-NEXT:    func.return %[[D]]
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private

func.func @nothing_to_dedup(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  %c = graph.exp %b : tensor<4xf32>
  %d = graph.sqrt %c : tensor<4xf32>
  func.return %d : tensor<4xf32>
}
