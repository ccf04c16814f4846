// RUN: not fxdsl-opt %s -p graph-unflatten --split-input-file | filecheck %s
// RUN: not fxdsl-opt %s -p graph-unflatten,graph-flatten --split-input-file | filecheck %s --check-prefix=FLAT
// RUN: fxdsl-opt %s --split-input-file | fxdsl-opt --split-input-file | filecheck %s --check-prefix=ROUND
// RUN: fxdsl-opt %s -p graph-unflatten --split-input-file --verify-diagnostics | filecheck %s --check-prefix=ERR
// RUN: not fxdsl-opt %s -p graph-unflatten --split-input-file 2>&1 | filecheck %s --check-prefix=FIRST

// Weights the model reaches under several names (`graph.aliases`): one
// module object called under each of them calls one function. The last
// chunks are errors (each message is checked by ERR; FIRST checks that the
// first one fails the driver with `error:` and no traceback).

// `self.mod3 = self.mod2`: torch.export gives each name its own argument
// and every use goes to one of them; the weight lies inside both fqns.
// CHECK-LABEL: func.func @aliased(
// CHECK-SAME:      %{{[^:]*}}: tensor<4xf32> {graph.param = "mod2.w", graph.aliases = ["mod2.w", "mod3.w"]}, %[[W:[^:]*]]: tensor<4xf32> {graph.param = "mod3.w", graph.aliases = ["mod2.w", "mod3.w"]}, %[[X:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]] = func.call @mod2(%[[X]], %[[W]]) {graph.module = #graph.scope<("mod2", 0, "Twice")>}
// CHECK-NEXT:    %[[B:.*]] = func.call @mod2(%[[A]], %[[W]]) {graph.module = #graph.scope<("mod3", 0, "Twice")>}
// CHECK-NEXT:    func.return %[[B]]
// CHECK-LABEL: func.func private @mod2(%{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<4xf32> {graph.param = "w"}) -> tensor<4xf32>
// CHECK-NEXT:    graph.add
// CHECK-NOT:   func.func private @mod3
// FLAT-LABEL:  func.func @aliased(
// FLAT-SAME:       {graph.param = "mod3.w", graph.aliases = ["mod2.w", "mod3.w"]}
// FLAT-NEXT:     graph.add %{{.*}} {scope = #graph.scope<("mod2", 0, "Twice")>}
// FLAT-NEXT:     graph.add %{{.*}} {scope = #graph.scope<("mod3", 0, "Twice")>}
// FLAT-NOT:    func.call
// ROUND-LABEL: func.func @aliased(
// ROUND-SAME:      %{{[^:]*}}: tensor<4xf32> {graph.param = "mod2.w", graph.aliases = ["mod2.w", "mod3.w"]}, %{{[^:]*}}: tensor<4xf32> {graph.param = "mod3.w", graph.aliases = ["mod2.w", "mod3.w"]}, %{{[^:]*}}: tensor<4xf32>)
func.func @aliased(%w2: tensor<4xf32> {graph.param = "mod2.w", graph.aliases = ["mod2.w", "mod3.w"]}, %w3: tensor<4xf32> {graph.param = "mod3.w", graph.aliases = ["mod2.w", "mod3.w"]}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %w3 {scope = #graph.scope<("mod2", 0, "Twice")>} : tensor<4xf32>
  %b = graph.add %a, %w3 {scope = #graph.scope<("mod3", 0, "Twice")>} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// `nn.Sequential(scale, relu, scale)`: inside `seq` the weight has two
// names, relative to it (`graph.aliases` again); `seq.0` and `seq.2` call
// one function.
// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:    func.call @seq(%{{[^,]*}}, %{{[^)]*}}) {graph.module = #graph.scope<("seq", 0, "Sequential")>}
// CHECK-LABEL: func.func private @seq(%{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<4xf32> {graph.param = "0.w", graph.aliases = ["0.w", "2.w"]}) -> tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = func.call @seq.0(%{{.*}}) {graph.module = #graph.scope<("0", 0, "Scale")>}
// CHECK-NEXT:    %[[B:.*]] = func.call @seq.1(%[[A]]) {graph.module = #graph.scope<("1", 0, "ReLU")>}
// CHECK-NEXT:    func.call @seq.0(%[[B]], %{{.*}}) {graph.module = #graph.scope<("2", 0, "Scale")>}
// CHECK-LABEL: func.func private @seq.0(%{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<4xf32> {graph.param = "w"}) -> tensor<4xf32>
// CHECK-NEXT:    graph.mul
// CHECK-NOT:   func.func private @seq.2
// FLAT-LABEL:  func.func @nested(
// FLAT-NEXT:     graph.mul %{{.*}} {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.0", 0, "Scale")>}
// FLAT-NEXT:     graph.relu %{{.*}} {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.1", 0, "ReLU")>}
// FLAT-NEXT:     graph.mul %{{.*}} {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.2", 0, "Scale")>}
func.func @nested(%w0: tensor<4xf32> {graph.param = "seq.0.w", graph.aliases = ["seq.0.w", "seq.2.w"]}, %w2: tensor<4xf32> {graph.param = "seq.2.w", graph.aliases = ["seq.0.w", "seq.2.w"]}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.mul %x, %w2 {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.0", 0, "Scale")>} : tensor<4xf32>
  %b = graph.relu %a {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.1", 0, "ReLU")>} : tensor<4xf32>
  %c = graph.mul %b, %w2 {scope = #graph.scope<("seq", 0, "Sequential"), ("seq.2", 0, "Scale")>} : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// FIRST-NOT: Traceback
// FIRST: error: graph-unflatten: argument 0 of @not_holding_param: graph.aliases must be a list of names holding its graph.param ("mod2.w"), got ["mod3.w"]
// ERR: graph-unflatten: argument 0 of @not_holding_param: graph.aliases must be a list of names holding its graph.param ("mod2.w"), got ["mod3.w"]
func.func @not_holding_param(%w: tensor<4xf32> {graph.param = "mod2.w", graph.aliases = ["mod3.w"]}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %w {scope = #graph.scope<("mod2", 0, "Twice")>} : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// ERR: graph-unflatten: argument 0 of @not_strings: graph.aliases must be a list of names holding its graph.param ("mod2.w"), got 3 : i64
func.func @not_strings(%w: tensor<4xf32> {graph.param = "mod2.w", graph.aliases = 3}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %w {scope = #graph.scope<("mod2", 0, "Twice")>} : tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// ERR: graph-unflatten: argument 0 of @no_param: graph.aliases must be a list of names holding its graph.param (none), got ["mod2.w", "mod3.w"]
func.func @no_param(%w: tensor<4xf32> {graph.aliases = ["mod2.w", "mod3.w"]}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %w {scope = #graph.scope<("mod2", 0, "Twice")>} : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
