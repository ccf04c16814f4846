// RUN: not fxdsl-opt %s -p graph-unflatten --split-input-file | filecheck %s
// RUN: not fxdsl-opt %s -p graph-unflatten{share=false} --split-input-file | filecheck %s --check-prefix=NOSHARE
// RUN: not fxdsl-opt %s -p graph-unflatten,graph-flatten --split-input-file | filecheck %s --check-prefix=FLAT
// RUN: fxdsl-opt %s -p graph-unflatten --split-input-file --verify-diagnostics | filecheck %s --check-prefix=ERR
// RUN: not fxdsl-opt %s -p graph-unflatten --split-input-file 2>&1 | filecheck %s --check-prefix=FIRST

// The chunks after the first have preserved call signatures; the last ones
// are errors (each message is checked by ERR; FIRST checks that the first
// one fails the driver with `error:` and no traceback).

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
// (in order of definition); inputs in order of first use in the body,
// whether or not they are function arguments (a canonical order).
// CHECK-LABEL: func.func @multi_output(
// CHECK-NEXT:    %[[T:.*]] = graph.neg %[[Y:.*]] :
// CHECK-NEXT:    %[[A:.*]], %[[C:.*]] = func.call @head(%[[T]], %{{.*}}, %[[Y]]) {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
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

// -----

// Preserved call signature order: arguments follow the signature, not first
// use (x, mask), and include the unused input `spare`; results follow it too
// and include `aux`, unused outside. Signature names leave the body.
// CHECK-LABEL: func.func @signature_order(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xf32> {graph.name = "x"}, %[[M:[^:]*]]: tensor<4xf32> {graph.name = "mask"}, %[[S:[^:]*]]: tensor<4xf32> {graph.name = "spare"})
// CHECK-NEXT:    %{{.*}}, %[[Y:.*]] = func.call @enc(%[[M]], %[[X]], %[[S]]) {graph.module = #graph.scope<("enc", 0, "Enc")>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    graph.tanh %[[Y]]
// CHECK-LABEL: func.func private @enc(
// CHECK-SAME:      %[[M2:[^:]*]]: tensor<4xf32> {graph.name = "mask"}, %[[X2:[^:]*]]: tensor<4xf32> {graph.name = "x"}, %{{[^:]*}}: tensor<4xf32> {graph.name = "spare"}) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[Y2:.*]] = graph.add %[[X2]], %[[M2]] : tensor<4xf32>
// CHECK-NEXT:    %[[A2:.*]] = graph.exp %[[X2]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[A2]], %[[Y2]] : tensor<4xf32>, tensor<4xf32>
// FLAT-LABEL:  func.func @signature_order(
// FLAT-NEXT:     graph.add %{{.*}}, %{{.*}} {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>}
// FLAT-NEXT:     graph.exp %{{.*}} {graph.name = "aux", scope = #graph.scope<("enc", 0, "Enc")>}
// FLAT-NEXT:     graph.tanh
module attributes {graph.call_signatures = {"enc" = #graph.signature<("mask", "x", "spare") -> ("aux", "y")>}} {
  func.func @signature_order(%x: tensor<4xf32> {graph.name = "x"}, %mask: tensor<4xf32> {graph.name = "mask"}, %spare: tensor<4xf32> {graph.name = "spare"}) -> tensor<4xf32> {
    %y = graph.add %x, %mask {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %aux = graph.exp %x {graph.name = "aux", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %r = graph.tanh %y : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// -----

// Two calls `blk` and `blk@1` with signatures of the same shape and
// identical bodies share one function (it shows the first call's names);
// the weight comes after the signature's inputs.
// CHECK-LABEL: func.func @shared_signatures(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xf32> {graph.name = "x"}, %[[W:[^:]*]]: tensor<4xf32> {graph.param = "blk.w"})
// CHECK-NEXT:    %[[H:.*]] = graph.neg %[[X]] {graph.name = "h"}
// CHECK-NEXT:    %[[O:.*]] = func.call @blk(%[[H]], %[[X]], %[[W]]) {graph.module = #graph.scope<("blk", 0, "Block")>}
// CHECK-NEXT:    %[[H2:.*]] = graph.neg %[[O]] {graph.name = "h2"}
// CHECK-NEXT:    func.call @blk(%[[H2]], %[[O]], %[[W]]) {graph.module = #graph.scope<("blk", 1, "Block")>}
// CHECK-LABEL: func.func private @blk(
// CHECK-SAME:      %[[A:[^:]*]]: tensor<4xf32> {graph.name = "h"}, %[[B:[^:]*]]: tensor<4xf32> {graph.name = "x"}, %[[V:[^:]*]]: tensor<4xf32> {graph.param = "w"}) -> tensor<4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.mul %[[B]], %[[V]] : tensor<4xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.add %[[P]], %[[A]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[Q]]
// CHECK-NOT:   func.func private @"blk@1"
// NOSHARE-LABEL: func.func private @"blk@1"(
// NOSHARE-SAME:    {graph.name = "h2"}, %{{[^:]*}}: tensor<4xf32> {graph.name = "o"}, %{{[^:]*}}: tensor<4xf32> {graph.param = "w"})
// FLAT-LABEL:  func.func @shared_signatures(
// FLAT-NEXT:     graph.neg %{{.*}} {graph.name = "h"}
// FLAT-NEXT:     graph.mul %{{.*}}, %{{.*}} {scope = #graph.scope<("blk", 0, "Block")>}
// FLAT-NEXT:     graph.add %{{.*}}, %{{.*}} {graph.name = "o", scope = #graph.scope<("blk", 0, "Block")>}
// FLAT-NEXT:     graph.neg %{{.*}} {graph.name = "h2"}
// FLAT-NEXT:     graph.mul %{{.*}}, %{{.*}} {scope = #graph.scope<("blk", 1, "Block")>}
// FLAT-NEXT:     graph.add %{{.*}}, %{{.*}} {graph.name = "o2", scope = #graph.scope<("blk", 1, "Block")>}
module attributes {graph.call_signatures = {"blk" = #graph.signature<("h", "x") -> ("o")>, "blk@1" = #graph.signature<("h2", "o") -> ("o2")>}} {
  func.func @shared_signatures(%x: tensor<4xf32> {graph.name = "x"}, %w: tensor<4xf32> {graph.param = "blk.w"}) -> tensor<4xf32> {
    %h = graph.neg %x {graph.name = "h"} : tensor<4xf32>
    %a = graph.mul %x, %w {scope = #graph.scope<("blk", 0, "Block")>} : tensor<4xf32>
    %o = graph.add %a, %h {graph.name = "o", scope = #graph.scope<("blk", 0, "Block")>} : tensor<4xf32>
    %h2 = graph.neg %o {graph.name = "h2"} : tensor<4xf32>
    %b = graph.mul %o, %w {scope = #graph.scope<("blk", 1, "Block")>} : tensor<4xf32>
    %o2 = graph.add %b, %h2 {graph.name = "o2", scope = #graph.scope<("blk", 1, "Block")>} : tensor<4xf32>
    func.return %o2 : tensor<4xf32>
  }
}

// -----

// A signature output made inside a submodule without a signature (and used
// nowhere) is returned by the submodule too, so that its parent can return it.
// CHECK-LABEL: func.func @nested_output(
// CHECK-NEXT:    %[[Y:.*]], %{{.*}} = func.call @enc(%{{.*}})
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-LABEL: func.func private @enc(
// CHECK-NEXT:    %[[A:.*]], %[[I:.*]] = func.call @enc.l(%{{.*}}) {graph.module = #graph.scope<("l", 0, "L")>}
// CHECK-NEXT:    %[[T:.*]] = graph.tanh %[[A]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[T]], %[[I]]
// CHECK-LABEL: func.func private @enc.l(
// CHECK-NEXT:    %[[E:.*]] = graph.exp
// CHECK-NEXT:    %[[S:.*]] = graph.sin %[[E]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[E]], %[[S]]
// FLAT-LABEL:  func.func @nested_output(
// FLAT-NEXT:     graph.exp %{{.*}} {scope = #graph.scope<("enc", 0, "Enc"), ("enc.l", 0, "L")>}
// FLAT-NEXT:     graph.sin %{{.*}} {graph.name = "inner", scope = #graph.scope<("enc", 0, "Enc"), ("enc.l", 0, "L")>}
// FLAT-NEXT:     graph.tanh %{{.*}} {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>}
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ("y", "inner")>}} {
  func.func @nested_output(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %a = graph.exp %x {scope = #graph.scope<("enc", 0, "Enc"), ("enc.l", 0, "L")>} : tensor<4xf32>
    %i = graph.sin %a {graph.name = "inner", scope = #graph.scope<("enc", 0, "Enc"), ("enc.l", 0, "L")>} : tensor<4xf32>
    %y = graph.tanh %a {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// FIRST-NOT: Traceback
// FIRST: error: graph-unflatten: call signature of 'enc': no value named 'nope' in @unknown_name
// ERR: graph-unflatten: call signature of 'enc': no value named 'nope' in @unknown_name
module attributes {graph.call_signatures = {"enc" = #graph.signature<("nope") -> ()>}} {
  func.func @unknown_name(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = graph.exp %x {scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: call signature of 'enc': input 'a' is defined inside the call
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x", "a") -> ("y")>}} {
  func.func @input_inside(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %a = graph.exp %x {graph.name = "a", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %y = graph.exp %a {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: call signature of 'enc': output 'h' is defined outside the call and is not an input
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ("y", "h")>}} {
  func.func @output_outside(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %h = graph.neg %x {graph.name = "h"} : tensor<4xf32>
    %y = graph.exp %x {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %z = graph.add %y, %h : tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: call signature of 'enc': the result of graph.neg at {{.*}}graph-unflatten.mlir:[[# @LINE + 3]]:5 is used inside the call but is not a signature input
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ("y")>}} {
  func.func @missing_input(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %h = graph.neg %x : tensor<4xf32>
    %y = graph.add %x, %h {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: call signature of 'enc': value 'a' is used outside the call but is not a signature output
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ("y")>}} {
  func.func @missing_output(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %a = graph.exp %x {graph.name = "a", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %y = graph.exp %a {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %z = graph.add %y, %a : tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: call signature for 'enc@1': no module call of that name in the module
module attributes {graph.call_signatures = {"enc@1" = #graph.signature<("x") -> ("y")>}} {
  func.func @no_such_call(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %y = graph.exp %x {graph.name = "y", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: value name 'x' is used twice in @duplicate_name
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ("x")>}} {
  func.func @duplicate_name(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %y = graph.exp %x {graph.name = "x", scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: graph-unflatten: graph.call_signatures must map call names to #graph.signature, got {enc = "x"}
module attributes {graph.call_signatures = {"enc" = "x"}} {
  func.func @bad_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = graph.exp %x {scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// ERR: {{.*}}graph-unflatten.mlir:[[# @LINE + 4]]:5: graph.name of graph.split must be a string (one result) or a list of 2 strings, got "s"
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x") -> ()>}} {
  func.func @bad_name(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<2xf32> {
    %y = graph.exp %x {scope = #graph.scope<("enc", 0, "Enc")>} : tensor<4xf32>
    %a, %b = graph.split %y dim 0 sizes [2, 2] {graph.name = "s"} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return %a : tensor<2xf32>
  }
}
