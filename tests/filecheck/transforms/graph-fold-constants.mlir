// RUN: fxdsl-opt %s -p graph-fold-constants | filecheck %s
// RUN: fxdsl-opt %s -p graph-fold-constants | fxdsl-opt -p graph-fold-constants | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fold-constants{max-elements=16}' | filecheck %s --check-prefix=CAP
// RUN: fxdsl-opt %s -p 'graph-fold-constants{allow-growth=true}' | filecheck %s --check-prefix=GROW
// RUN: fxdsl-opt %s -p 'graph-fold-constants{conv-bn=false}' | filecheck %s --check-prefix=NOBN
// RUN: not fxdsl-opt %s -p 'graph-fold-constants{max-elements=-1}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not fxdsl-opt %s -p 'graph-fold-constants{conv-bn=2}' 2>&1 | filecheck %s --check-prefix=NOTBOOL

// The second RUN line checks idempotence.

// A chain of constant ops becomes one constant with the last op's name and
// attributes; the op reading the argument stays, the dead inputs go.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %e = graph.constant {scope = #graph.scope<("a", 0, "A")>} dense<[7.38905573, 54.5981483, 403.428772, 2980.95801]> : tensor<4xf32>
// CHECK-NEXT:    %y = graph.add %x, %e : tensor<4xf32>
// CHECK-NEXT:    func.return %y
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %two = graph.full value 2.0 : tensor<4xf32>
  %m = graph.mul %c, %two : tensor<4xf32>
  %e = graph.exp %m {scope = #graph.scope<("a", 0, "A")>} : tensor<4xf32>
  %y = graph.add %x, %e : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// Equal elements make a graph.full, however large; beyond max-elements
// nothing is evaluated and the broadcast stays.
// CHECK-LABEL: func.func @splat
// CHECK-NEXT:    %b = graph.full value 6.000000e+00 : tensor<64x64xi64>
// CHECK-NEXT:    func.return %b
// CAP-LABEL: func.func @splat
// CAP-NEXT:    %s = graph.full value 6.000000e+00 : tensor<1xi64>
// CAP-NEXT:    %b = graph.broadcast_to %s
func.func @splat() -> tensor<64x64xi64> {
  %s0 = graph.full value 3.0 : tensor<1xi64>
  %s = graph.add %s0, %s0 : tensor<1xi64>
  %b = graph.broadcast_to %s : (tensor<1xi64>) -> tensor<64x64xi64>
  func.return %b : tensor<64x64xi64>
}

// An arange is a generator, like graph.full: nothing folds that would turn
// it into a literal (its reshapes, the outer comparison graph-decompose
// builds masks from), unless allow-growth; the sum of the mask is one
// scalar and folds either way, and what only it read goes.
// CHECK-LABEL: func.func @growth
// CHECK-NEXT:    %i = graph.arange
// CHECK-NEXT:    %r = graph.reshape %i
// CHECK-NEXT:    %t = graph.reshape %i
// CHECK-NEXT:    %mask = graph.le %r, %t
// CHECK-NEXT:    %n = graph.full value 1.000000e+01 : tensor<i64>
// CHECK-NEXT:    func.return %mask, %n
// GROW-LABEL: func.func @growth
// GROW-NEXT:    %mask = graph.constant dense<{{\[\[}}true, true, true, true], [false, true, true, true], [false, false, true, true], [false, false, false, true]]> : tensor<4x4xi1>
// GROW-NEXT:    %n = graph.full value 1.000000e+01 : tensor<i64>
func.func @growth() -> (tensor<4x4xi1>, tensor<i64>) {
  %i = graph.arange start 0.0 step 1.0 : tensor<4xi64>
  %r = graph.reshape %i : (tensor<4xi64>) -> tensor<4x1xi64>
  %t = graph.reshape %i : (tensor<4xi64>) -> tensor<1x4xi64>
  %mask = graph.le %r, %t : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
  %wide = graph.cast %mask : (tensor<4x4xi1>) -> tensor<4x4xi64>
  %n = graph.sum %wide dims [0, 1] : (tensor<4x4xi64>) -> tensor<i64>
  func.return %mask, %n : tensor<4x4xi1>, tensor<i64>
}

// conv -> batch_norm with constant weights and statistics is one conv:
// weight w * s per output channel, bias beta + (b - mean) * s, where
// s = gamma / sqrt(var + eps) = [2, 0.5] here.
// CHECK-LABEL: func.func @conv_bn
// CHECK-NEXT:    %w = graph.constant {scope = #graph.scope<("conv", 0, "Conv2d")>} dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}5.000000e-01]], {{\[\[}}-5.000000e-01]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %beta = graph.constant {scope = #graph.scope<("bn", 0, "BatchNorm2d")>} dense<[7.000000e+00, 3.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %y = graph.conv2d %x, %w, %beta dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] {scope = #graph.scope<("conv", 0, "Conv2d")>}
// CHECK-NEXT:    func.return %y
// NOBN-LABEL: func.func @conv_bn
// NOBN:          graph.conv2d
// NOBN:          graph.batch_norm
func.func @conv_bn(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[1.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %mean = graph.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %var = graph.constant dense<[0.25, 4.0]> : tensor<2xf32>
  %gamma = graph.full value 1.0 : tensor<2xf32>
  %beta = graph.constant dense<[9.0, 2.5]> : tensor<2xf32>
  %c = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] {scope = #graph.scope<("conv", 0, "Conv2d")>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = graph.batch_norm %c, %mean, %var, %gamma, %beta eps 0.0 {scope = #graph.scope<("bn", 0, "BatchNorm2d")>} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// conv1d with a bias: the bias folds in too.
// CHECK-LABEL: func.func @conv1d_bn
// CHECK-NEXT:    %w = graph.constant dense<{{\[\[\[}}2.000000e+00, 4.000000e+00]]]> : tensor<1x1x2xf32>
// CHECK-NEXT:    %beta = graph.full value 7.000000e+00 : tensor<1xf32>
// CHECK-NEXT:    %y = graph.conv1d %x, %w, %beta dilation [1]
func.func @conv1d_bn(%x: tensor<1x1x5xf32>) -> tensor<1x1x4xf32> {
  %w = graph.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  %b = graph.full value 3.0 : tensor<1xf32>
  %mean = graph.full value 1.0 : tensor<1xf32>
  %var = graph.full value 0.25 : tensor<1xf32>
  %gamma = graph.full value 1.0 : tensor<1xf32>
  %beta = graph.full value 3.0 : tensor<1xf32>
  %c = graph.conv1d %x, %w, %b dilation [1] groups 1 padding [0] stride [1] : (tensor<1x1x5xf32>, tensor<1x1x2xf32>, tensor<1xf32>) -> tensor<1x1x4xf32>
  %y = graph.batch_norm %c, %mean, %var, %gamma, %beta eps 0.0 : (tensor<1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4xf32>
  func.return %y : tensor<1x1x4xf32>
}

// Not folded: the conv's result is used twice (both would need the conv),
// or the statistics are arguments.
// CHECK-LABEL: func.func @conv_bn_kept
// CHECK:         graph.batch_norm
// CHECK:         graph.batch_norm
// CHECK-NOT:     graph.batch_norm
func.func @conv_bn_kept(%x: tensor<1x1x3xf32>, %v: tensor<1xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>) {
  %w = graph.full value 2.0 : tensor<1x1x1xf32>
  %one = graph.full value 1.0 : tensor<1xf32>
  %c = graph.conv1d %x, %w dilation [1] groups 1 padding [0] stride [1] : (tensor<1x1x3xf32>, tensor<1x1x1xf32>) -> tensor<1x1x3xf32>
  %y = graph.batch_norm %c, %one, %one, %one, %one eps 0.0 : (tensor<1x1x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3xf32>
  %d = graph.conv1d %x, %w dilation [1] groups 1 padding [0] stride [1] : (tensor<1x1x3xf32>, tensor<1x1x1xf32>) -> tensor<1x1x3xf32>
  %z = graph.batch_norm %d, %one, %v, %one, %one eps 0.0 : (tensor<1x1x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3xf32>
  func.return %y, %c, %z : tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>
}

// NEG: error: graph-fold-constants: max-elements must be an integer >= 0, got -1
// NOTBOOL: error: graph-fold-constants: {{.*}}conv-bn {{.*}}true or false, got 2
