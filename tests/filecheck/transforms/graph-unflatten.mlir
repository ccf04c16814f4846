// RUN: fxdsl-opt %s -p graph-unflatten | filecheck %s
// RUN: fxdsl-opt %s -p graph-unflatten{share=false} | filecheck %s --check-prefix=NOSHARE
// RUN: fxdsl-opt %s -p graph-unflatten,graph-flatten | filecheck %s --check-prefix=FLAT

// Two levels: root -> encoder -> encoder.layers.0..2, nested by fqn.
// CHECK-LABEL: func.func @two_level(
// CHECK-NEXT:    %[[A:.*]] = graph.neg
// CHECK-NEXT:    %[[F:.*]] = func.call @encoder(%[[A]]) {graph.module = #graph.scope<("encoder", 0, "Encoder")>}
// CHECK-NEXT:    graph.relu %[[F]]
// CHECK-LABEL: func.func private @encoder(
// CHECK-NEXT:    %[[B:.*]] = graph.tanh
// CHECK-NEXT:    %[[C:.*]] = func.call @encoder.layers.0(%[[B]]) {graph.module = #graph.scope<("layers.0", 0, "Layer")>}
// CHECK-NEXT:    %[[D:.*]] = func.call @encoder.layers.1(%[[C]]) {graph.module = #graph.scope<("layers.1", 0, "Layer")>}
// CHECK-NEXT:    %[[E:.*]] = func.call @encoder.layers.1(%[[D]]) {graph.module = #graph.scope<("layers.2", 0, "Layer")>}
// CHECK-NEXT:    %[[R:.*]] = graph.abs %[[E]]
// CHECK-NEXT:    func.return %[[R]]
// CHECK-LABEL: func.func private @encoder.layers.0(
// CHECK-NEXT:    graph.exp
// CHECK-NOT:   scope
// CHECK-LABEL: func.func private @encoder.layers.1(
// CHECK-NEXT:    graph.sin
// CHECK-NOT:   @encoder.layers.2
// NOSHARE-LABEL: func.func private @encoder.layers.2(
// FLAT-LABEL:  func.func @two_level(
// FLAT-NEXT:     graph.neg %{{.*}} : tensor<4xf32>
// FLAT-NEXT:     graph.tanh %{{.*}} {scope = #graph.scope<("encoder", 0, "Encoder")>}
// FLAT-NEXT:     graph.exp %{{.*}} {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.0", 0, "Layer")>}
// FLAT-NEXT:     graph.sin %{{.*}} {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.1", 0, "Layer")>}
// FLAT-NEXT:     graph.sin %{{.*}} {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.2", 0, "Layer")>}
// FLAT-NEXT:     graph.abs %{{.*}} {scope = #graph.scope<("encoder", 0, "Encoder")>}
// FLAT-NEXT:     graph.relu %{{.*}} : tensor<4xf32>
// FLAT-NOT:    func.call
func.func @two_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x : tensor<4xf32>
  %b = graph.tanh %a {scope = #graph.scope<("encoder", 0, "Encoder")>} : tensor<4xf32>
  %c = graph.exp %b {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.0", 0, "Layer")>} : tensor<4xf32>
  %d = graph.sin %c {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.1", 0, "Layer")>} : tensor<4xf32>
  %e = graph.sin %d {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.2", 0, "Layer")>} : tensor<4xf32>
  %f = graph.abs %e {scope = #graph.scope<("encoder", 0, "Encoder")>} : tensor<4xf32>
  %g = graph.relu %f : tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// One module called twice with identical graphs: one function, two calls.
// CHECK-LABEL: func.func @called_twice(
// CHECK-NEXT:    %[[A:.*]] = func.call @act(%{{.*}}) {graph.module = #graph.scope<("act", 0, "Act")>}
// CHECK-NEXT:    func.call @act(%[[A]]) {graph.module = #graph.scope<("act", 1, "Act")>}
// CHECK-LABEL: func.func private @act(
// CHECK-NOT:   func.func private @"act@1"
// NOSHARE-LABEL: func.func private @"act@1"(
func.func @called_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.tanh %x {scope = #graph.scope<("act", 0, "Act")>} : tensor<4xf32>
  %b = graph.tanh %a {scope = #graph.scope<("act", 1, "Act")>} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// One module called twice with different graphs: `drop` and `drop@1`.
// CHECK-LABEL: func.func @called_twice_differently(
// CHECK-NEXT:    %[[A:.*]] = func.call @drop(
// CHECK-NEXT:    func.call @"drop@1"(%[[A]]) {graph.module = #graph.scope<("drop", 1, "Drop")>}
// CHECK-LABEL: func.func private @drop(
// CHECK-NEXT:    graph.tanh
// CHECK-LABEL: func.func private @"drop@1"(
// CHECK-NEXT:    graph.sin
func.func @called_twice_differently(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.tanh %x {scope = #graph.scope<("drop", 0, "Drop")>} : tensor<4xf32>
  %b = graph.sin %a {scope = #graph.scope<("drop", 1, "Drop")>} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// Multiple outputs, one of them unused outside: only used values are results
// (in order of definition); inputs are function arguments first.
// CHECK-LABEL: func.func @multi_output(
// CHECK-NEXT:    %[[T:.*]] = graph.neg %[[Y:.*]] :
// CHECK-NEXT:    %[[A:.*]], %[[C:.*]] = func.call @head(%{{.*}}, %[[Y]], %[[T]]) {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    graph.add %[[A]], %[[C]]
// CHECK-LABEL: func.func private @head(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         graph.exp
// CHECK:         func.return %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @multi_output(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %t = graph.neg %y : tensor<4xf32>
  %a = graph.add %t, %x {scope = #graph.scope<("head", 0, "Head")>} : tensor<4xf32>
  %b = graph.mul %a, %y {scope = #graph.scope<("head", 0, "Head")>} : tensor<4xf32>
  %unused = graph.exp %b {scope = #graph.scope<("head", 0, "Head")>} : tensor<4xf32>
  %c = graph.tanh %b {scope = #graph.scope<("head", 0, "Head")>} : tensor<4xf32>
  %s = graph.add %a, %c : tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// Weights sink: a weight is an argument of the module that owns it and of
// its ancestors only, named relative to the module, after the data inputs.
// CHECK-LABEL: func.func @weights(
// CHECK-NEXT:    func.call @blk(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-LABEL: func.func private @blk(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32> {graph.param = "ln.weight"}, %{{.*}}: tensor<4xf32> {graph.param = "ln.bias"})
// CHECK:         func.call @blk.ln(
// CHECK-LABEL: func.func private @blk.ln(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32> {graph.param = "weight"}, %{{.*}}: tensor<4xf32> {graph.param = "bias"})
// CHECK-NEXT:    graph.layer_norm
func.func @weights(%w: tensor<4xf32> {graph.param = "blk.ln.weight"}, %b: tensor<4xf32> {graph.param = "blk.ln.bias"}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.layer_norm %x, %w, %b eps 1.0e-05 {scope = #graph.scope<("blk", 0, "Block"), ("blk.ln", 0, "LayerNorm")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = graph.tanh %y {scope = #graph.scope<("blk", 0, "Block")>} : tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// A skip connection across siblings (`enc.a` -> `dec.b`) goes through the
// common ancestor (the root): an extra result of `enc`, an argument of `dec`.
// CHECK-LABEL: func.func @skip(
// CHECK-NEXT:    %[[I:.*]], %[[O:.*]] = func.call @enc(
// CHECK-NEXT:    func.call @dec(%[[O]], %[[I]])
// CHECK-LABEL: func.func private @enc(
// CHECK-NEXT:    %[[I:.*]] = func.call @enc.a(
// CHECK-NEXT:    %[[O:.*]] = graph.tanh %[[I]]
// CHECK-NEXT:    func.return %[[I]], %[[O]]
// CHECK-LABEL: func.func private @dec(
// CHECK-NEXT:    func.call @dec.b(
func.func @skip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = graph.exp %x {scope = #graph.scope<("enc", 0, "Enc"), ("enc.a", 0, "A")>} : tensor<4xf32>
  %o = graph.tanh %i {scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
  %d = graph.add %o, %i {scope = #graph.scope<("dec", 0, "Dec"), ("dec.b", 0, "B")>} : tensor<4xf32>
  func.return %d : tensor<4xf32>
}
